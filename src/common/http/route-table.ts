import { METHODS } from 'node:http';
import { Injectable } from '@nestjs/common';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import FindMyWay from 'find-my-way';

/** The longest request line Node accepts (its 16 KiB header limit): no parameter is ever too long to route. */
const MAX_PARAM_LENGTH = 16 * 1024;

/**
 * How paths match routes, for the server and for this table alike: without case and with or without
 * a trailing slash (as the service has always routed), and parameters of any length (a too-long id
 * is a 404 of its route, after authentication, not a 414 before it).
 */
export const ROUTER_OPTIONS = { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH } as const;

export interface Route {
  method: string;
  /** Fastify's spelling: `/v1/notes/:id`. */
  url: string;
}

/**
 * The routes the server serves, recorded as it registers them: which methods a path has (a 405
 * names them in `Allow`) and the whole list (the tests compare it with the controllers and the
 * OpenAPI document). A wildcard route (Swagger UI's static files) says nothing about a path and is
 * left out.
 */
@Injectable()
export class RouteTable {
  private readonly router = FindMyWay(ROUTER_OPTIONS);
  private readonly routes: Route[] = [];

  /** Records every route `server` registers from now on. */
  track(server: FastifyInstance): void {
    server.addHook('onRoute', ({ method, url }) => {
      for (const one of ([] as HTTPMethods[]).concat(method)) this.add(one.toUpperCase(), url);
    });
  }

  private add(method: string, url: string): void {
    if (url.includes('*') || this.router.hasRoute(method as FindMyWay.HTTPMethod, url)) return;
    this.router.on(method as FindMyWay.HTTPMethod, url, () => undefined);
    this.routes.push({ method, url });
  }

  /**
   * The methods routed for `path`, HEAD with GET, sorted; none for a path no route matches. A match
   * with an empty parameter (`/v1/notes//` for `/v1/notes/:id`) is none: Nest answers it not found.
   */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const method of METHODS) {
      const found = this.router.find(method as FindMyWay.HTTPMethod, path);
      if (found && !Object.values(found.params).includes('')) methods.add(method);
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  list(): readonly Route[] {
    return this.routes;
  }
}

import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/** A route of Express's router: a path and the methods it has handlers for. */
export interface RouterRoute {
  path: string;
  methods: Record<string, boolean>;
}

/** A layer of Express's router: a route or a middleware (no `route`). */
interface RouterLayer {
  route?: RouterRoute;
  match(path: string): boolean;
}

type RouteLayer = Required<RouterLayer>;

export interface Route {
  method: string;
  /** Express's spelling: `/v1/notes/:id`. */
  url: string;
}

/**
 * The routes the server serves, read from Express's router: which methods a path has (a 405 names
 * them in `Allow`) and the whole list (the tests compare it with the controllers and the OpenAPI
 * document). Middleware (Nest's not-found handler, Swagger UI's static files) says nothing about a
 * path and is left out. Read when asked, after every route is registered; the CLI, which has no
 * HTTP server, never asks.
 */
@Injectable()
export class RouteTable {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  private routeLayers(): RouteLayer[] {
    const app = this.adapterHost.httpAdapter.getInstance<{ router: { stack: RouterLayer[] } }>();
    return app.router.stack.filter((layer): layer is RouteLayer => layer.route !== undefined);
  }

  /**
   * The methods routed for `path`, HEAD with GET, sorted; none for a path no route matches (a
   * parameter that is empty or does not decode matches nothing).
   */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const layer of this.routeLayers()) {
      if (matches(layer, path)) for (const method of methodsOf(layer.route)) methods.add(method);
    }
    return [...methods].sort();
  }

  list(): Route[] {
    return this.routeLayers().flatMap(({ route }) =>
      Object.keys(route.methods).map((method) => ({ method: method.toUpperCase(), url: route.path })),
    );
  }
}

/** The methods a route answers: its own, and HEAD where it has GET (Express answers HEAD with the GET handler). */
function methodsOf(route: RouterRoute): string[] {
  const methods = Object.keys(route.methods)
    .filter((method) => route.methods[method])
    .map((method) => method.toUpperCase());
  return methods.includes('GET') && !methods.includes('HEAD') ? [...methods, 'HEAD'] : methods;
}

/**
 * Whether the route Express matched for a request has a handler for its method. Express's router
 * matches a HEAD request to a route by its path alone, GET or not, and sets `request.route` before
 * finding no handler there: a route set on a request is not proof that it was answered.
 */
export function routeAnswers(route: RouterRoute | undefined, method: string): boolean {
  return route !== undefined && methodsOf(route).includes(method);
}

function matches(layer: RouterLayer, path: string): boolean {
  try {
    return layer.match(path);
  } catch {
    return false; // a parameter that does not percent-decode
  }
}

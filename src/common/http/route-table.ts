import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/** A layer of Express's router: a route (a path with its methods) or a middleware (no `route`). */
interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
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
      if (!matches(layer, path)) continue;
      for (const [method, enabled] of Object.entries(layer.route.methods)) if (enabled) methods.add(method.toUpperCase());
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  list(): Route[] {
    return this.routeLayers().flatMap(({ route }) =>
      Object.keys(route.methods).map((method) => ({ method: method.toUpperCase(), url: route.path })),
    );
  }
}

function matches(layer: RouterLayer, path: string): boolean {
  try {
    return layer.match(path);
  } catch {
    return false; // a parameter that does not percent-decode
  }
}

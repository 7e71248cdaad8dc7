import { METHODS } from 'node:http';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

const EVERY_METHOD = METHODS.map((method) => method.toLowerCase());

/**
 * A route that answers every method says nothing about a path: Nest's not-found handler (`_all`)
 * and middleware a Nest module binds to every route (registered with Express 5's `app.all`, which
 * enables each method one by one rather than setting `_all`).
 */
export function isCatchAllRoute(route: { methods?: Record<string, boolean> } | undefined): boolean {
  const methods = route?.methods;
  if (!methods) return false;
  return methods._all === true || EVERY_METHOD.every((method) => methods[method]);
}

/** The methods that the Express app routes for `path`, from its router (routes only, not middleware). */
export function allowedMethods(expressApp: { router?: { stack: RouteLayer[] } }, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of expressApp.router?.stack ?? []) {
    if (!layer.route || isCatchAllRoute(layer.route) || !layer.match(path)) continue;
    for (const [method, enabled] of Object.entries(layer.route.methods)) {
      if (enabled) methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

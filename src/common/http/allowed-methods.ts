interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

/** The methods that the Express app routes for `path`, from its router (routes only, not middleware). */
export function allowedMethods(expressApp: { router?: { stack: RouteLayer[] } }, path: string): string[] {
  const methods = new Set<string>();
  for (const layer of expressApp.router?.stack ?? []) {
    // `_all` marks a catch-all such as Nest's not-found handler, which says nothing about the path.
    if (!layer.route || layer.route.methods._all || !layer.match(path)) continue;
    for (const [method, enabled] of Object.entries(layer.route.methods)) {
      if (enabled) methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

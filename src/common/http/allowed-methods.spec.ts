import express from 'express';
import { allowedMethods, isCatchAllRoute } from './allowed-methods';

type RoutedApp = Parameters<typeof allowedMethods>[0];

function app(): RoutedApp {
  const handler: express.RequestHandler = (_request, response) => response.end();
  const application = express();
  application.use((_request, _response, next) => next()); // middleware: not a route
  application.get('/v1/members', handler);
  application.get('/v1/members/:id', handler);
  application.post('/v1/notes', handler);
  application.get('/v1/notes', handler);
  application.post('/v1/files/:id/complete', handler);
  // Middleware a Nest module binds to every route (Express 5 `all` enables each method).
  application.all('/{*path}', (_request, _response, next) => next());
  // Nest's style of catch-all (`_all`).
  application.route('/{*path}').all(handler);
  return application as unknown as RoutedApp;
}

describe('allowedMethods', () => {
  it.each([
    ['/v1/members', ['GET', 'HEAD']],
    ['/v1/members/mem_123', ['GET', 'HEAD']],
    ['/v1/notes', ['GET', 'HEAD', 'POST']],
    ['/v1/files/fil_1/complete', ['POST']],
  ])('lists the methods routed for %s, HEAD with GET, sorted', (path, methods) => {
    expect(allowedMethods(app(), path)).toEqual(methods);
  });

  it.each(['/nope', '/v1', '/v1/members/a/b', '/v1/files/fil_1'])('lists none for %s, ignoring catch-alls', (path) => {
    expect(allowedMethods(app(), path)).toEqual([]);
  });

  it('lists none for an app without a router', () => {
    expect(allowedMethods({}, '/v1/members')).toEqual([]);
  });
});

describe('isCatchAllRoute', () => {
  it('recognises a route of every method and a `_all` route', () => {
    const every = Object.fromEntries(require('node:http').METHODS.map((method: string) => [method.toLowerCase(), true]));
    expect(isCatchAllRoute({ methods: every })).toBe(true);
    expect(isCatchAllRoute({ methods: { _all: true } })).toBe(true);
  });

  it('does not take a route of some methods, or none, for a catch-all', () => {
    expect(isCatchAllRoute({ methods: { get: true } })).toBe(false);
    expect(isCatchAllRoute({ methods: { get: true, post: true, put: true, patch: true, delete: true } })).toBe(false);
    expect(isCatchAllRoute(undefined)).toBe(false);
    expect(isCatchAllRoute({})).toBe(false);
  });
});

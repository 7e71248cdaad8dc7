import type { HttpAdapterHost } from '@nestjs/core';
import express from 'express';
import { routeAnswers, RouteTable } from './route-table';

function tableOf(register: (app: express.Express) => void): RouteTable {
  const app = express();
  register(app);
  return new RouteTable({ httpAdapter: { getInstance: () => app } } as unknown as HttpAdapterHost);
}

describe('RouteTable', () => {
  let table: RouteTable;
  beforeAll(() => {
    const handler: express.RequestHandler = (_request, response) => void response.end();
    table = tableOf((app) => {
      app.get('/v1/members', handler);
      app.get('/v1/members/:id', handler);
      app.post('/v1/notes', handler);
      app.get('/v1/notes', handler);
      app.post('/v1/files/:id/complete', handler);
      // Middleware, as Swagger UI's static files and Nest's not-found handler are mounted: no route.
      app.use('/docs', handler);
      app.use(handler);
    });
  });

  it.each([
    ['/v1/members', ['GET', 'HEAD']],
    ['/v1/members/mem_123', ['GET', 'HEAD']],
    ['/v1/notes', ['GET', 'HEAD', 'POST']],
    ['/v1/files/fil_1/complete', ['POST']],
    ['/V1/Notes/', ['GET', 'HEAD', 'POST']],
    [`/v1/members/${'x'.repeat(5000)}`, ['GET', 'HEAD']],
  ])('lists the methods routed for %s, HEAD with GET, sorted', (path, methods) => {
    expect(table.allowedMethods(path)).toEqual(methods);
  });

  it.each([
    '/nope',
    '/v1',
    '/v1/members/a/b',
    '/v1/files/fil_1',
    '/docs/swagger-ui.css',
    '/v1/members//',
    '/v1/files//complete',
    '/v1/members/%ZZ',
  ])('lists none for %s', (path) => {
    expect(table.allowedMethods(path)).toEqual([]);
  });

  it('lists each route with its methods, and no middleware', () => {
    const routes = table.list().map(({ method, url }) => `${method} ${url}`);
    expect(routes.sort()).toEqual([
      'GET /v1/members',
      'GET /v1/members/:id',
      'GET /v1/notes',
      'POST /v1/files/:id/complete',
      'POST /v1/notes',
    ]);
  });

  it.each([
    [{ get: true }, 'GET', true],
    [{ get: true }, 'HEAD', true],
    [{ get: true, head: true }, 'HEAD', true],
    [{ post: true }, 'POST', true],
    // Express matches HEAD to a route by its path and sets it on the request, GET or not.
    [{ post: true }, 'HEAD', false],
    [{ post: true }, 'GET', false],
    [{ get: false, post: true }, 'HEAD', false],
  ])('says whether a route of methods %j answers %s', (methods, method, answers) => {
    expect(routeAnswers({ path: '/v1/x', methods }, method)).toBe(answers);
  });

  it('says no route answers a request Express routed nowhere', () => {
    expect(routeAnswers(undefined, 'GET')).toBe(false);
  });
});

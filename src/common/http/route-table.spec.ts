import fastify from 'fastify';
import { ROUTER_OPTIONS, RouteTable } from './route-table';

async function tableOf(register: (server: ReturnType<typeof fastify>) => void): Promise<RouteTable> {
  const server = fastify({ routerOptions: ROUTER_OPTIONS });
  const table = new RouteTable();
  table.track(server);
  register(server);
  await server.ready();
  await server.close();
  return table;
}

describe('RouteTable', () => {
  let table: RouteTable;
  beforeAll(async () => {
    const handler = async () => ({});
    table = await tableOf((server) => {
      server.get('/v1/members', handler);
      server.get('/v1/members/:id', handler);
      server.post('/v1/notes', handler);
      server.get('/v1/notes', handler);
      server.post('/v1/files/:id/complete', handler);
      // Static files under a prefix, as Swagger UI's are served: a wildcard, not a route.
      server.get('/docs/*', handler);
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

  it.each(['/nope', '/v1', '/v1/members/a/b', '/v1/files/fil_1', '/docs/swagger-ui.css', '/v1/members//', '/v1/files//complete'])('lists none for %s', (path) => {
    expect(table.allowedMethods(path)).toEqual([]);
  });

  it('lists each route once, with the HEAD Fastify adds to a GET, and no wildcard', () => {
    const routes = table.list().map(({ method, url }) => `${method} ${url}`);
    expect(routes).toEqual(expect.arrayContaining(['GET /v1/members/:id', 'HEAD /v1/members/:id', 'POST /v1/notes']));
    expect(new Set(routes).size).toBe(routes.length);
    expect(routes.filter((route) => route.includes('*'))).toEqual([]);
  });
});

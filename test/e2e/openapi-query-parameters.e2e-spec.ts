import { documentOperations } from '../support/openapi';
import { controllerOperations } from '../support/routes';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The query parameters an operation lists are the ones its handler declares (a @Query() DTO, @Paginated),
 * the declaration QueryParametersGuard acts on: the document cannot list a parameter the service
 * refuses, nor leave out one it takes.
 */
describe('OpenAPI: an operation lists query parameters exactly when its route accepts a query', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('holds for every operation of the document', () => {
    const operations = documentOperations(t.document);
    const handlers = controllerOperations(t.app).filter(({ route }) => operations.has(route));
    expect(handlers.length).toBe(operations.size);
    const disagreeing = handlers.flatMap(({ route, takesQuery }) => {
      const documented = (operations.get(route)!.parameters ?? []).some(
        (parameter) => 'in' in parameter && parameter.in === 'query',
      );
      return documented === takesQuery
        ? []
        : [`${route}: documents ${documented ? 'a' : 'no'} query, accepts ${takesQuery ? 'one' : 'none'}`];
    });
    expect(disagreeing).toEqual([]);
  });
});

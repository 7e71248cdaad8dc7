import type { ParameterObject, SchemaObject } from '@nestjs/swagger';
import type { Response } from 'supertest';
import { exampleIdOf } from '../../src/common/ids';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { documentOperations } from '../support/openapi';
import { controllerOperations } from '../support/routes';
import { adminHeaders, createTestApp, TestApp, v1Headers } from '../support/test-app';

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

/** Values no pattern of a list or text parameter should take for granted: those a pattern refuses must be refused. */
const PATTERN_PROBES = ['', ' ', ',', 'a,', ',a', 'a,,b', 'a, ,b', ' \t '];

/**
 * What the document says of each query parameter is what the service does, from outside: a
 * generated client or Swagger UI that follows the document sends what the service takes, and
 * only that. Required ones are refused when absent, naming them; optional ones may be left out;
 * each documented bound holds both ways, a value just inside it taken and one just outside
 * refused naming the parameter.
 */
describe('OpenAPI: each query parameter is required, typed and bounded as the service enforces it', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  const pathValues: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp();
    ws = await createWorkspace(t.http);
    const defined = await t.http
      .post(`/admin/v1/workspaces/${ws.workspaceId}/object-types`)
      .set(adminHeaders())
      .send({ slug: 'gadget', label: 'Gadget', fields: { title: { label: 'Title', valueType: 'TEXT' } } });
    expect(defined.status).toBe(200);
    const list = await t.http
      .post('/v1/lists')
      .set(v1Headers(ws.key))
      .send({ fields: { $name: 'Targets', $objectType: 'account' } });
    expect(list.status).toBe(200);
    const webhook = await t.http
      .post('/v1/webhooks')
      .set(v1Headers(ws.key))
      .send({ url: 'https://203.0.113.10/hooks', eventTypes: ['note.created'] });
    expect(webhook.status).toBe(200);
    Object.assign(pathValues, { entitySlug: 'gadget', listId: list.body.id, webhookId: webhook.body.id });
  });
  afterAll(() => t.close());

  interface QueryOperation {
    route: string;
    method: string;
    path: string;
    parameters: (ParameterObject & { schema: SchemaObject })[];
  }

  /** Every operation that takes a query, its path filled with what exists; the filters' object, which names no parameter, aside. */
  function queryOperations(): QueryOperation[] {
    return [...documentOperations(t.document)].flatMap(([route, operation]) => {
      const parameters = (operation.parameters ?? []).filter(
        (parameter): parameter is ParameterObject & { schema: SchemaObject } =>
          'in' in parameter && parameter.in === 'query' && (parameter.schema as SchemaObject).type !== 'object',
      );
      if (parameters.length === 0) return [];
      const [method, template] = route.split(' ');
      const path = template.replace(/\{(\w+)\}/g, (_match, name: string) =>
        name === 'id'
          ? template.startsWith('/v1/webhooks')
            ? pathValues.webhookId
            : exampleIdOf('file')
          : pathValues[name],
      );
      return [{ route, method, path, parameters }];
    });
  }

  /** A value the document offers for the parameter: its example or default, else its least integer, else text. */
  const documentedValue = ({ schema }: { schema: SchemaObject }): string =>
    String(schema.example ?? schema.default ?? (schema.type === 'integer' ? (schema.minimum ?? 0) : 'x'));

  function call(operation: QueryOperation, query: Record<string, string>): Promise<Response> {
    const url = `${operation.path}?${new URLSearchParams(query).toString()}`;
    const sent = operation.method === 'PUT' ? t.http.put(url) : t.http.get(url);
    return sent.set(v1Headers(ws.key));
  }

  /** Each required parameter at its documented value, nothing else. */
  const requiredOnly = (operation: QueryOperation) =>
    Object.fromEntries(
      operation.parameters.filter((parameter) => parameter.required).map((p) => [p.name, documentedValue(p)]),
    );

  /** `route name=value: status code param` of a response refusing `name`, or nothing. */
  const refusal = (operation: QueryOperation, response: Response, name: string, value?: string): string[] =>
    response.status === 400 && response.body.error?.param === name
      ? [`${operation.route} ${name}=${JSON.stringify(value)}: 400 ${response.body.error.message}`]
      : [];

  it('takes every operation with its required parameters only, refusing none of them and requiring nothing else', async () => {
    const operations = queryOperations();
    expect(operations.map((operation) => operation.route)).toContain('GET /v1/search');
    const refused: string[] = [];
    for (const operation of operations) {
      const response = await call(operation, requiredOnly(operation));
      if (response.status === 400 && response.body.error?.code === 'invalid_parameter')
        refused.push(`${operation.route}: 400 ${response.body.error.param}: ${response.body.error.message}`);
    }
    expect(refused).toEqual([]);
  });

  it('refuses a request without a required parameter, naming it', async () => {
    const missed: string[] = [];
    for (const operation of queryOperations()) {
      for (const parameter of operation.parameters.filter((p) => p.required)) {
        const { [parameter.name]: _left, ...others } = requiredOnly(operation);
        const response = await call(operation, others);
        const named = response.status === 400 && response.body.error?.param === parameter.name;
        if (!named) missed.push(`${operation.route} without ${parameter.name}: ${response.status}`);
        else
          expect(response.body.error).toMatchObject({
            code: 'invalid_parameter',
            message: `${parameter.name} is required`,
          });
      }
    }
    expect(missed).toEqual([]);
    // The case the document once got wrong: search's q.
    const search = queryOperations().find((operation) => operation.route === 'GET /v1/search')!;
    expect(search.parameters.find((parameter) => parameter.name === 'q')?.required).toBe(true);
  });

  it('holds each documented bound both ways: a value just inside taken, one just outside refused naming the parameter', async () => {
    const wrong: string[] = [];
    let bounds = 0;
    for (const operation of queryOperations()) {
      for (const parameter of operation.parameters) {
        const { schema, name } = parameter;
        const inside: string[] = [];
        const outside: string[] = [];
        if (schema.minimum !== undefined) {
          inside.push(String(schema.minimum));
          outside.push(String(BigInt(schema.minimum) - 1n));
        }
        if (schema.maximum !== undefined) {
          inside.push(String(schema.maximum));
          outside.push(String(BigInt(schema.maximum) + 1n));
        }
        if (schema.minLength !== undefined) {
          inside.push('a'.repeat(schema.minLength));
          if (schema.minLength > 0) outside.push('a'.repeat(schema.minLength - 1));
        }
        if (schema.maxLength !== undefined) {
          inside.push('a'.repeat(schema.maxLength));
          outside.push('a'.repeat(schema.maxLength + 1));
        }
        if (schema.pattern !== undefined) {
          const pattern = new RegExp(schema.pattern, 'u');
          const example = documentedValue(parameter);
          expect({ route: operation.route, name, example, matches: pattern.test(example) }).toMatchObject({
            matches: true,
          });
          inside.push(example);
          const refusedByPattern = PATTERN_PROBES.filter((probe) => !pattern.test(probe));
          expect({ route: operation.route, name, refusedByPattern }).not.toEqual({
            route: operation.route,
            name,
            refusedByPattern: [],
          });
          outside.push(...refusedByPattern);
        }
        if (schema.enum !== undefined) {
          inside.push(...schema.enum.map(String));
          outside.push('not-one-of-the-enum');
        }
        bounds += inside.length + outside.length;
        for (const value of inside) {
          const response = await call(operation, { ...requiredOnly(operation), [name]: value });
          wrong.push(...refusal(operation, response, name, value).map((line) => `refused inside: ${line}`));
        }
        for (const value of outside) {
          const response = await call(operation, { ...requiredOnly(operation), [name]: value });
          if (refusal(operation, response, name, value).length === 0)
            wrong.push(`taken outside: ${operation.route} ${name}=${JSON.stringify(value)}: ${response.status}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(bounds).toBeGreaterThan(0);
  });
});

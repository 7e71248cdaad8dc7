import type { OpenAPIObject } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Response } from 'supertest';
import { codesOf, ERROR_TYPES, isErrorStatus } from '../../src/common/errors/error-codes';
import { exampleIdOf, ID_PREFIXES, type IdKind } from '../../src/common/ids';
import { PROJECT_TYPE_EXAMPLE } from '../../src/modules/objects/project-type.example';
import { until } from '../support/concurrency';
import { documentOperations, OpenApiValidator, resolved } from '../support/openapi';
import { createIsolatedTestApp } from '../support/scratch-database';
import { adminHeaders, TestApp, v1Headers } from '../support/test-app';

type MediaType = {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
};
type Parameter = { name: string; in: string; schema?: { example?: unknown }; style?: string; explode?: boolean };
type Operation = { parameters?: Parameter[]; requestBody?: { content: Record<string, MediaType> } };

/** The document's operations, as far as this suite reads them. */
function operationsOf(document: OpenAPIObject): Map<string, Operation> {
  return documentOperations(document) as unknown as Map<string, Operation>;
}

/** The body Swagger UI pre-fills: the media type's example, else the first of its examples. */
function prefilledBody(media: MediaType): unknown {
  if (media.example !== undefined) return media.example;
  return media.examples ? Object.values(media.examples)[0]?.value : undefined;
}

/** Schemas (not parameters) that admit members the document does not name, without an example. */
function openMapsWithoutExample(value: unknown, at: string, found: string[] = []): string[] {
  if (!value || typeof value !== 'object') return found;
  const schema = value as Record<string, unknown>;
  const open = schema.additionalProperties !== undefined && schema.additionalProperties !== false;
  if (open && schema.example === undefined) found.push(at);
  for (const [key, inner] of Object.entries(schema)) openMapsWithoutExample(inner, `${at}/${key}`, found);
  return found;
}

/**
 * The component schemas `roots` refer to, at any depth and through the schemas they name, but
 * for what is under `skipped`.
 */
function referencedSchemas(document: OpenAPIObject, roots: unknown[], skipped: Set<unknown>): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object' || skipped.has(value)) return;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const at = ref.split('/').slice(0, 4).join('/');
      if (found.has(at)) return;
      found.add(at);
      visit(document.components?.schemas?.[at.split('/')[3]]);
    }
    for (const inner of Object.values(value)) visit(inner);
  };
  roots.forEach(visit);
  return found;
}

/**
 * What "Try it out" does in Swagger UI, executed for every documented JSON request body, in the
 * order a person meets them: the operator's examples make a workspace, a member, a key and the
 * `project` type, and every /v1 create and update then succeeds with its pre-filled body. The
 * only edits are the ones a person makes: ids in the path, and the id-shaped placeholders of
 * required relationships (and of the key's member, and of the event a webhook redelivers) replaced
 * with ids of their own.
 */
describe('OpenAPI examples: every pre-filled request body succeeds as documented', () => {
  let t: TestApp;
  let validator: OpenApiValidator;
  let operations: Map<string, Operation>;

  beforeAll(async () => {
    // Its webhook example makes deliveries: on a database of its own (see createIsolatedTestApp). The
    // example's URL is a public address, which the app's WEBHOOK_ALLOWED_NETWORKS (loopback, every
    // test app's) keeps it from connecting to: each attempt is recorded FAILED, naming the setting.
    t = await createIsolatedTestApp('records_examples');
    validator = new OpenApiValidator(t.document);
    operations = operationsOf(t.document);
  });
  afterAll(() => t.close());

  it('every JSON request body has an example, which its own schema accepts', () => {
    const missing: string[] = [];
    for (const [route, operation] of operations) {
      const media = operation.requestBody?.content['application/json'];
      if (!media) continue;
      const body = prefilledBody(media);
      if (body === undefined) missing.push(route);
      else {
        const [method, pathTemplate] = route.split(' ');
        validator.assertRequest(method, pathTemplate, body);
      }
    }
    expect(missing).toEqual([]);
  });

  it('no request or response schema leaves Swagger UI to invent members (additionalProp1)', () => {
    // A body with an example is pre-filled from it: its schema's open maps are never sampled, whether
    // the body writes its schema in place or names it (nameRequestBodies), nor those of the components
    // only such bodies refer to (a record type's fields).
    const prefilledMedia = new Set<unknown>();
    for (const operation of operations.values()) {
      const media = operation.requestBody?.content['application/json'];
      if (media && prefilledBody(media) !== undefined) prefilledMedia.add(media);
    }
    const { schemas, ...others } = t.document.components ?? {};
    const sampled = referencedSchemas(t.document, [t.document.paths, others], prefilledMedia);
    const onlyPrefilled = new Set(
      [...referencedSchemas(t.document, [...prefilledMedia], new Set())].filter((ref) => !sampled.has(ref)),
    );
    const found = openMapsWithoutExample(others, '#/components');
    for (const [name, schema] of Object.entries(schemas ?? {})) {
      const at = `#/components/schemas/${name}`;
      if (!onlyPrefilled.has(at)) openMapsWithoutExample(schema, at, found);
    }
    for (const [route, operation] of operations) {
      const { requestBody, responses } = operation as Operation & { responses?: unknown };
      // A body with an example is pre-filled from it: its schema's open maps are never sampled.
      for (const [type, media] of Object.entries(requestBody?.content ?? {})) {
        if (prefilledBody(media) === undefined) openMapsWithoutExample(media, `${route} requestBody ${type}`, found);
      }
      openMapsWithoutExample(responses, `${route} responses`, found);
    }
    expect(found).toEqual([]);
  });

  it('every error response shows an error of its own status, with a code that status allows', () => {
    const wrong: string[] = [];
    for (const [route, operation] of operations) {
      type Response = { content?: Record<string, MediaType> };
      const responses = (operation as { responses: Record<string, Response | { $ref: string }> }).responses;
      for (const [status, shared] of Object.entries(responses)) {
        const response = resolved<Response>(t.document, shared);
        const code = Number(status);
        const example = response.content?.['application/json']?.example as { error?: { type?: string; code?: string } };
        if (!isErrorStatus(code)) continue;
        const allowed = (codesOf(code) as string[]).includes(example?.error?.code ?? '');
        if (example?.error?.type !== ERROR_TYPES[code] || !allowed) wrong.push(`${route} ${status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the operator’s create-type example is the repository’s examples/object-type.json', () => {
    const file = JSON.parse(readFileSync(path.join(__dirname, '../../examples/object-type.json'), 'utf8')) as unknown;
    expect(PROJECT_TYPE_EXAMPLE.value).toEqual(file);
  });

  it('executes each pre-filled body in a person’s order and gets a documented success', async () => {
    const executed = new Set<string>();
    const createdIds = new Map<string, string>();
    const placeholders = new Map<string, string>();
    let headers: Record<string, string> = adminHeaders();

    /** The path with `{param}`s filled: the workspace, a created id, or the parameter's example. */
    const fillPath = (route: string, template: string): string =>
      template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
        if (name === 'workspaceId') return createdIds.get('/admin/v1/workspaces')!;
        const example = operations.get(route)!.parameters?.find((p) => p.name === name && p.in === 'path')
          ?.schema?.example;
        if (typeof example === 'string') return example;
        const collection = fillPath(route, template.slice(0, template.indexOf(`/{${name}}`)));
        const id = createdIds.get(collection);
        if (!id) throw new Error(`${route}: nothing created at ${collection} gives {${name}}`);
        return id;
      });

    const withOwnIds = (body: unknown): unknown =>
      JSON.parse(JSON.stringify(body), (_key, value: unknown) =>
        typeof value === 'string' && placeholders.has(value) ? placeholders.get(value) : value,
      );

    const execute = async (route: string, prefix = ''): Promise<Response> => {
      const operation = operations.get(route);
      if (!operation) throw new Error(`${route} is not documented`);
      const [method, template] = route.split(' ');
      const body = withOwnIds(prefilledBody(operation.requestBody!.content['application/json']));
      const response = await t.http[method.toLowerCase() as 'post'](prefix + fillPath(route, template))
        .set(headers)
        .send(body as object);
      if (response.status !== 200 && response.status !== 201) {
        throw new Error(`${route} answered ${response.status}: ${JSON.stringify(response.body)}`);
      }
      validator.assert(response);
      executed.add(route);
      const id = (response.body as { id?: unknown }).id;
      if (typeof id === 'string') createdIds.set(fillPath(route, template), id);
      return response;
    };

    /** A collection's batch routes and upsert; the update example's id is the one its create made. */
    const executeBatches = async (collection: string) => {
      const id = createdIds.get(fillPath(`POST ${collection}`, collection))!;
      placeholders.set(
        exampleIdOf((Object.keys(ID_PREFIXES) as IdKind[]).find((kind) => id.startsWith(`${ID_PREFIXES[kind]}_`))!),
        id,
      );
      for (const route of ['batch/create', 'batch/update', 'batch/upsert', 'upsert'])
        await execute(`POST ${collection}/${route}`);
    };

    await execute('POST /admin/v1/workspaces');
    const member = await execute('POST /admin/v1/workspaces/{workspaceId}/members');
    placeholders.set(exampleIdOf('member'), (member.body as { id: string }).id);
    const key = await execute('POST /admin/v1/workspaces/{workspaceId}/api-keys');
    await execute('POST /admin/v1/workspaces/{workspaceId}/object-types');
    await execute('POST /admin/v1/workspaces/{workspaceId}/object-types/{slug}/fields');
    await execute('POST /admin/v1/workspaces/{workspaceId}/object-types/{slug}/relationships');

    headers = v1Headers((key.body as { key: string }).key);
    const account = await execute('POST /v1/accounts');
    placeholders.set(exampleIdOf('account'), (account.body as { id: string }).id);
    for (const collection of [
      '/v1/accounts',
      '/v1/notes',
      '/v1/tasks',
      '/v1/contacts',
      '/v1/opportunities',
      '/v1/lists',
    ]) {
      if (collection !== '/v1/accounts') await execute(`POST ${collection}`);
      await execute(`POST ${collection}/{id}`);
      if (collection !== '/v1/lists') await executeBatches(collection);
    }
    await execute('POST /v1/meetings');
    await execute('POST /v1/meetings/{id}');
    await execute('POST /v1/objects/{entitySlug}/values');
    await execute('POST /v1/objects/{entitySlug}/values/{id}');
    await executeBatches('/v1/objects/{entitySlug}/values');

    const file = await execute('POST /v1/files');
    const { uploadUrl, uploadHeaders, sizeBytes } = file.body as {
      uploadUrl: string;
      uploadHeaders: Record<string, string>;
      sizeBytes: number;
    };
    const target = new URL(uploadUrl);
    const put = await t.http
      .put(target.pathname + target.search)
      .set(uploadHeaders)
      .send(Buffer.alloc(sizeBytes, 'a'));
    expect(put.status).toBe(200);
    await execute('POST /v1/files/{id}/complete');
    await execute('POST /v1/files');
    await execute('POST /v1/files/{id}/cancel');

    const webhook = (await execute('POST /v1/webhooks')).body as { id: string };
    await execute('POST /v1/webhooks/{id}');
    // A note created is an event the endpoint is sent; a person reads its id off the endpoint's deliveries, once the
    // write's fan-out made its first attempt.
    await execute('POST /v1/notes');
    let deliveries!: Response;
    await until('the fan-out to make the first attempt', async () => {
      deliveries = await t.http.get(`/v1/webhooks/${webhook.id}/deliveries`).set(headers);
      // At least one: the attempt fails at once (WEBHOOK_ALLOWED_NETWORKS), and its successor may be listed already.
      return ((deliveries.body as { data?: unknown[] }).data?.length ?? 0) >= 1;
    });
    validator.assert(deliveries);
    placeholders.set(exampleIdOf('event'), (deliveries.body as { data: { eventId: string }[] }).data[0].eventId);
    await execute('POST /v1/webhooks/{id}/redeliver');
    await execute('POST /v1/webhooks/{id}/rotate-secret');
    const attempted = async () =>
      (await t.http.get(`/v1/webhooks/${webhook.id}/deliveries`).set(headers)).body as {
        data: { status: string; error: string | null }[];
      };
    await until('an attempt of the example endpoint', async () =>
      (await attempted()).data.some((delivery) => delivery.status === 'FAILED'),
    );
    expect((await attempted()).data.find((delivery) => delivery.status === 'FAILED')?.error).toMatch(
      /\(WEBHOOK_ALLOWED_NETWORKS\)$/,
    );
    // Last: the example makes every later write of the workspace need a precondition.
    headers = adminHeaders();
    const settings = await execute('POST /admin/v1/workspaces/{workspaceId}/settings');
    expect((settings.body as { requirePreconditions: boolean }).requirePreconditions).toBe(true);

    const withBodies = [...operations].filter(([, operation]) => operation.requestBody?.content['application/json']);
    expect(withBodies.map(([route]) => route).filter((route) => !executed.has(route))).toEqual([]);
  });

  it('the filters example of every list route is accepted as Swagger UI sends it', async () => {
    const ws = await t.http.post('/admin/v1/workspaces').set(adminHeaders()).send({ name: 'Filters' });
    const workspaceId = (ws.body as { id: string }).id;
    const member = await t.http
      .post(`/admin/v1/workspaces/${workspaceId}/members`)
      .set(adminHeaders())
      .send({ email: 'filters@example.com' });
    const key = await t.http
      .post(`/admin/v1/workspaces/${workspaceId}/api-keys`)
      .set(adminHeaders())
      .send({ memberId: (member.body as { id: string }).id, scopes: ['*'] });
    await t.http
      .post(`/admin/v1/workspaces/${workspaceId}/object-types`)
      .set(adminHeaders())
      .send(PROJECT_TYPE_EXAMPLE.value as object)
      .expect(200);

    const checked: string[] = [];
    for (const [route, operation] of operations) {
      const filters = operation.parameters?.find((parameter) => parameter.name === 'filters');
      if (!filters) continue;
      expect({ route, style: filters.style, explode: filters.explode }).toEqual({
        route,
        style: 'form',
        explode: true,
      });
      const [, template] = route.split(' ');
      const url = template.replace('{entitySlug}', 'project');
      // form + explode: each member of the object is one query parameter, the parameter's name is not sent.
      const response = await t.http
        .get(url)
        .query(filters.schema?.example as Record<string, string>)
        .set(v1Headers((key.body as { key: string }).key));
      expect({ route, status: response.status }).toEqual({ route, status: 200 });
      validator.assert(response);
      checked.push(route);
    }
    expect(checked).toEqual(
      expect.arrayContaining(['GET /v1/notes', 'GET /v1/members', 'GET /v1/meetings', 'GET /v1/objects/{entitySlug}']),
    );
  });
});

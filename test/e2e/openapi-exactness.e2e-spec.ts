import type { OpenAPIObject } from '@nestjs/swagger';
import type { Response } from 'supertest';
import { exampleIdOf, ID_PREFIXES, type IdKind } from '../../src/common/ids';
import { DatabaseHealth } from '../../src/database/database-health';
import { FilesRepository } from '../../src/modules/files/files.repository';
import { MembersService } from '../../src/modules/members/members.service';
import { PROJECT_TYPE_EXAMPLE } from '../../src/modules/objects/project-type.example';
import { apiSuite } from '../support/api-suite';
import { undocumentedError } from '../support/documented-errors';
import { expectError } from '../support/errors';
import { createKey, createMember, createWorkspace } from '../support/factories';
import { documentOperations, resolved } from '../support/openapi';
import { requestOf } from '../support/request-of';
import { adminHeaders, createTestApp, v1Headers } from '../support/test-app';

type Schema = Record<string, unknown>;
type Media = { schema?: Schema; example?: unknown; examples?: Record<string, { value: unknown }> };
type DocumentResponse = { headers?: Record<string, { $ref?: string }> };
type Operation = {
  security?: unknown[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, DocumentResponse>;
};

/**
 * The maps of request bodies whose keys are the workspace's own (its custom fields and
 * relationships, the fields and relationships of a type it defines): a static document cannot
 * close them, so it types their values instead. Every other object of a request body is closed.
 */
const OPEN_MAPS = [
  /^POST \/v1\/(((notes|tasks|accounts|contacts|opportunities|objects\/\{entitySlug\}\/values)(\/\{id\}|\/upsert)?)|meetings) \.(fields|relationships)$/,
  // Each input of a batch is the body of a single write.
  /^POST \/v1\/(notes|tasks|accounts|contacts|opportunities|objects\/\{entitySlug\}\/values)\/batch\/(create|update|upsert) \.inputs(\.\d+)?\.(fields|relationships)$/,
  /^POST \/admin\/v1\/workspaces\/\{workspaceId\}\/object-types \.(fields|relationships)$/,
];
const isOpenMap = (route: string, at: string): boolean => OPEN_MAPS.some((pattern) => pattern.test(`${route} ${at}`));

/** The headers the request pipeline writes on a response, whatever the handler. */
const PIPELINE_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
  'Idempotent-Replayed',
];

const UNKNOWN_MEMBER = 'unknownMember';

/** The kind of the ids of a collection of the API's paths. */
const COLLECTION_KINDS: Record<string, IdKind> = {
  notes: 'note',
  tasks: 'task',
  accounts: 'account',
  contacts: 'contact',
  opportunities: 'opportunity',
  meetings: 'meeting',
  lists: 'list',
  files: 'file',
  webhooks: 'webhook',
  members: 'member',
  'api-keys': 'apiKey',
  downloads: 'file',
  uploads: 'file',
};
const ID_SHAPE = /^([a-z]+)_[0-9A-HJKMNP-TV-Z]{26}$/;

function operations(document: OpenAPIObject): Map<string, Operation> {
  return documentOperations(document) as unknown as Map<string, Operation>;
}

function componentOf(document: OpenAPIObject, ref: string): Schema {
  const [, , , name, ...rest] = ref.split('/');
  let schema = document.components!.schemas![name] as Schema;
  for (const key of rest) schema = schema[key] as Schema;
  return schema;
}

/** Every object schema under `schema`, by the dotted path of the body member it describes. */
function objectSchemas(
  document: OpenAPIObject,
  schema: unknown,
  at: string,
  found: [string, Schema][],
  seen = new Set<unknown>(),
): [string, Schema][] {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return found;
  seen.add(schema);
  const node = schema as Schema;
  if (typeof node.$ref === 'string') return objectSchemas(document, componentOf(document, node.$ref), at, found, seen);
  if (node.type === 'object' && !Array.isArray(node.enum)) found.push([at, node]);
  for (const [name, member] of Object.entries((node.properties ?? {}) as Record<string, unknown>))
    objectSchemas(document, member, `${at}.${name}`, found, seen);
  if (node.additionalProperties && typeof node.additionalProperties === 'object')
    objectSchemas(document, node.additionalProperties, `${at}.*`, found, seen);
  for (const key of ['items', 'oneOf', 'anyOf', 'allOf']) {
    const inner = node[key];
    for (const item of Array.isArray(inner) ? inner : [inner]) objectSchemas(document, item, at, found, seen);
  }
  return found;
}

/** Every schema object of the document (components and operations), with where it is. */
function everySchema(value: unknown, at: string, found: [string, Schema][] = []): [string, Schema][] {
  if (!value || typeof value !== 'object') return found;
  if (Array.isArray(value)) {
    value.forEach((item, index) => everySchema(item, `${at}/${index}`, found));
    return found;
  }
  const node = value as Schema;
  if (node.type === 'object' || node.properties !== undefined) found.push([at, node]);
  for (const [key, inner] of Object.entries(node))
    if (key !== 'example' && key !== 'examples') everySchema(inner, `${at}/${key}`, found);
  return found;
}

/** Every string an example of the document holds, with where it is. */
function exampleStrings(
  value: unknown,
  at: string,
  inExample = false,
  found: [string, string][] = [],
): [string, string][] {
  if (typeof value === 'string') {
    if (inExample) found.push([at, value]);
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      exampleStrings(inner, `${at}/${key}`, inExample || key === 'example' || key === 'examples', found);
    }
  }
  return found;
}

/** The id kind a schema named like `CreatedApiKeyDto` or `MeetingDto` is the resource of, if any. */
function kindOfSchema(name: string): IdKind | undefined {
  const kinds = (Object.keys(ID_PREFIXES) as IdKind[])
    .map((kind) => ({ kind, at: name.indexOf(kind[0].toUpperCase() + kind.slice(1)) }))
    .filter(({ at }) => at !== -1)
    .sort((a, b) => a.at - b.at);
  return kinds[0]?.kind;
}

function prefilledBody(media: Media): unknown {
  return media.example ?? Object.values(media.examples ?? {})[0]?.value;
}

/** `body` with the unknown member added to the object at `path` (dotted, from the body). */
function withUnknownMember(body: unknown, path: string[]): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  let node = copy;
  for (const key of path) node = node[key] as Record<string, unknown>;
  node[UNKNOWN_MEMBER] = 1;
  return copy;
}

/** The dotted paths of the objects of a body, outermost first, without the entries of an open map itself. */
function objectPaths(value: unknown, path: string[] = [], found: string[][] = []): string[][] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return found;
  found.push(path);
  for (const [key, inner] of Object.entries(value)) objectPaths(inner, [...path, key], found);
  return found;
}

/**
 * The document against the service it describes: what a validator built from it accepts, the
 * service accepts, and what the service refuses, it refuses; the headers the pipeline writes, the
 * statuses and the security of each operation are the ones the service has.
 */
describe('OpenAPI: the document is as exact as the service', () => {
  const suite = apiSuite();
  let document: OpenAPIObject;

  beforeAll(async () => {
    document = suite.t.document;
    await suite.t.http
      .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types`)
      .set(adminHeaders())
      .send(PROJECT_TYPE_EXAMPLE.value as object)
      .expect(200);
  });

  /**
   * The path of `template` with the suite's workspace, the project type and, for any other
   * parameter, an id of the collection's kind (the services refuse another shape before the body).
   */
  const concretePath = (template: string): string =>
    template
      .replace('{workspaceId}', suite.ws.workspaceId)
      .replace(/\{(slug|entitySlug)\}/, 'project')
      .replace(/\/([a-z-]+)\/(?:[^/]+\/)?\{[^}]+\}/g, (segment: string, collection: string) =>
        segment.replace(/\{[^}]+\}/, exampleIdOf(COLLECTION_KINDS[collection] ?? 'record')),
      );

  it('every object of a request body is closed, but the maps of the workspace’s own keys, whose values it types', () => {
    const open: string[] = [];
    const untyped: string[] = [];
    for (const [route, operation] of operations(document)) {
      const schema = operation.requestBody?.content['application/json']?.schema;
      for (const [at, object] of objectSchemas(document, schema, '', [])) {
        if (object.additionalProperties === false) continue;
        if (!isOpenMap(route, at)) open.push(`${route} ${at || '(body)'}`);
        else if (typeof object.additionalProperties !== 'object') untyped.push(`${route} ${at}`);
      }
    }
    expect({ open, untyped }).toEqual({ open: [], untyped: [] });
  });

  it('a member nobody declared, in any object of an example body, is refused by the document and by the service (400 unknown_field)', async () => {
    const accepted: string[] = [];
    let checked = 0;
    for (const [route, operation] of operations(document)) {
      const media = operation.requestBody?.content['application/json'];
      if (!media) continue;
      const [method, template] = route.split(' ');
      const body = prefilledBody(media);
      for (const path of objectPaths(body)) {
        // A key added to an open map is a custom field or relationship the workspace may not have: not a member.
        if (isOpenMap(route, path.length ? `.${path.join('.')}` : '')) continue;
        const mutated = withUnknownMember(body, path);
        const param = [...path, UNKNOWN_MEMBER].join('.');
        const target = concretePath(template);
        const headers = template.startsWith('/admin/') ? adminHeaders() : v1Headers(suite.ws.key);
        const response = await suite.t.http[method.toLowerCase() as 'post'](target)
          .set(headers)
          .send(mutated as object);
        checked += 1;
        if (!suite.openapi.refusesRequest(method, template, mutated))
          accepted.push(`${route} ${param}: the document accepts it`);
        const answer = {
          status: response.status,
          code: response.body?.error?.code,
          param: response.body?.error?.param,
        };
        if (answer.status !== 400 || answer.code !== 'unknown_field' || answer.param !== param) {
          accepted.push(`${route} ${param}: the service answered ${JSON.stringify(answer)}`);
        }
      }
    }
    expect(accepted).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it.each([
    ['a member email that is no address', 'POST /admin/v1/workspaces/{workspaceId}/members', { email: 'ada' }, 422],
    [
      'a task without its assignee (relationships null)',
      'POST /v1/tasks',
      { fields: { $title: 'T', $status: 'TODO' }, relationships: null },
      422,
    ],
    [
      'a task with no assignee id',
      'POST /v1/tasks',
      { fields: { $title: 'T', $status: 'TODO' }, relationships: { $assignedTo: [] } },
      422,
    ],
    ['an opportunity without its account', 'POST /v1/opportunities', { fields: { $name: 'O', $stage: 'LEAD' } }, 422],
    [
      'an opportunity with relationships null',
      'POST /v1/opportunities',
      { fields: { $name: 'O', $stage: 'LEAD' }, relationships: null },
      422,
    ],
    [
      'a custom field value no field type takes',
      'POST /v1/objects/{entitySlug}/values',
      { fields: { name: { given: 'x' } } },
      400,
    ],
    [
      'a custom relationship given a number',
      'POST /v1/objects/{entitySlug}/values',
      { fields: { name: 'P' }, relationships: { lead: 7 } },
      400,
    ],
    ['a FULL_NAME member that is not one', 'POST /v1/contacts', { fields: { $name: { middleName: 'B' } } }, 400],
  ])('%s: the service refuses it, and so does the document', async (_what, route, body, status) => {
    const [method, template] = route.split(' ');
    const headers = template.startsWith('/admin/') ? adminHeaders() : v1Headers(suite.ws.key);
    const response = await suite.t.http[method.toLowerCase() as 'post'](concretePath(template)).set(headers).send(body);
    expect({ status: response.status, body: response.body }).toEqual({
      status,
      body: expect.objectContaining({ error: expect.any(Object) }),
    });
    expect(suite.openapi.refusesRequest(method, template, body)).toBe(true);
  });

  it('no schema has an object that says nothing of its members', () => {
    const vague = everySchema(document, '#')
      .filter(([, schema]) => !Array.isArray(schema.enum))
      .filter(([, schema]) => Object.keys(schema.properties ?? {}).length === 0)
      .filter(([, schema]) => schema.additionalProperties === undefined || schema.additionalProperties === true)
      .map(([at]) => at);
    expect(vague).toEqual([]);
  });

  it('every id in an example has a known prefix, and an `id` the prefix of its resource', () => {
    const prefixes = new Set<string>(Object.values(ID_PREFIXES));
    const wrong: string[] = [];
    for (const [at, value] of exampleStrings(document, '#')) {
      const prefix = ID_SHAPE.exec(value)?.[1];
      if (prefix !== undefined && !prefixes.has(prefix)) wrong.push(`${at}: ${value}`);
    }
    for (const [name, schema] of Object.entries(document.components!.schemas!)) {
      const example = ((schema as Schema).properties as Record<string, Schema> | undefined)?.id?.example;
      const kind = kindOfSchema(name);
      if (typeof example === 'string' && kind && !example.startsWith(`${ID_PREFIXES[kind]}_`))
        wrong.push(`${name}.id: ${example}`);
    }
    expect(wrong).toEqual([]);
    expect(kindOfSchema('MeetingDto')).toBe('meeting');
  });

  it('an operation that answers without credentials says security: [], every other names its scheme', async () => {
    const wrong: string[] = [];
    for (const [route, operation] of operations(document)) {
      const [method, template] = route.split(' ');
      const response = await suite.t.http[method.toLowerCase() as 'get'](concretePath(template));
      const needsCredentials = response.status === 401;
      const documented = operation.security === undefined ? 'none' : operation.security.length ? 'required' : 'public';
      if (documented !== (needsCredentials ? 'required' : 'public'))
        wrong.push(`${route}: ${response.status}, security ${documented}`);
    }
    expect(wrong).toEqual([]);
  });

  it('every operation the JSON body parser guards lists its refusals, whatever its method', async () => {
    const undocumented: string[] = [];
    for (const route of operations(document).keys()) {
      const [method, template] = route.split(' ');
      if (!/^\/(v1|admin)\//.test(template)) continue;
      const target = concretePath(template);
      const send = () => suite.t.http[method.toLowerCase() as 'get'](target);
      const refusals = [
        await send().set('Content-Type', 'text/plain').send('x'),
        await send().set('Content-Type', 'application/json').send('{'),
        await send()
          .set('Content-Type', 'application/json')
          .send(`{"x":"${'a'.repeat(1024 * 1024)}"}`),
      ];
      expect(refusals.map((response) => response.status)).toEqual([415, 400, 413]);
      for (const response of refusals) {
        const problem = undocumentedError(document, {
          method,
          target,
          status: response.status,
          code: response.body.error.code,
        });
        if (problem) undocumented.push(problem);
      }
    }
    expect(undocumented).toEqual([]);
  });

  describe('every pipeline header a response carries is declared on that response, as a components.headers reference', () => {
    const undeclared: string[] = [];
    /** `<header> <status>` for every pipeline header seen on a real response. */
    const seen = new Set<string>();

    /** Records the pipeline headers `response` carries that its documented response does not declare. */
    function check(response: Response): void {
      const { method, path } = requestOf(response);
      const route = [...operations(document)].find(([name]) => {
        const [documentedMethod, template] = name.split(' ');
        return (
          documentedMethod === method &&
          new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path.split('?')[0])
        );
      });
      expect({ path, route: route !== undefined }).toEqual({ path, route: true });
      const [name, operation] = route!;
      const documented = resolved<DocumentResponse | undefined>(document, operation.responses[String(response.status)]);
      for (const header of PIPELINE_HEADERS) {
        if (response.headers[header.toLowerCase()] === undefined) continue;
        seen.add(`${header} ${response.status}`);
        if (documented?.headers?.[header]?.$ref !== `#/components/headers/${header}`)
          undeclared.push(`${name} ${response.status}: ${header}`);
      }
    }

    it('on successes and errors before and after the rate limit counts the request', async () => {
      const { t, ws } = suite;
      const limited = await createWorkspace(t.http, ['notes:read']);
      const plain = await createMember(t.http, ws.workspaceId);
      const plainKey = await createKey(t.http, ws.workspaceId, plain.id, ['files:create']);
      const expires = Math.floor(Date.now() / 1000) + 600;
      const createList = () =>
        t.http
          .post('/v1/lists')
          .set(v1Headers(ws.key))
          .set('Idempotency-Key', `headers-${process.pid}-${expires}`)
          .send({ fields: { $name: 'Replayed', $objectType: 'account' } });
      const responses = [
        await createList(),
        await createList(),
        await t.http.get('/v1/notes').set(v1Headers(ws.key)),
        await t.http.get(`/v1/notes/${exampleIdOf('note')}`).set(v1Headers(ws.key)),
        await t.http.get(`/v1/members/${ws.memberId}?unknown=1`).set(v1Headers(ws.key)),
        await t.http.post('/v1/notes').set(v1Headers(ws.key)).send({ fields: {} }),
        await t.http.post('/v1/notes').set(v1Headers(ws.key)).set('Content-Type', 'text/plain').send('x'),
        await t.http.get('/v1/notes'),
        await t.http.get('/v1/notes').set({ Authorization: `Bearer ${ws.key}` }),
        await t.http.get('/v1/members').set(v1Headers(limited.key)),
        await t.http
          .post('/v1/files')
          .set(v1Headers(plainKey.key))
          .send({ filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 1, purpose: 'knowledge_workspace' }),
        await t.http.post('/admin/v1/workspaces').set(adminHeaders()).send({ name: 'Headers' }),
        await t.http.post('/admin/v1/workspaces').send({ name: 'Headers' }),
        await t.http.get('/health'),
        await t.http.get('/health/ready'),
        await t.http.get(`/downloads/${exampleIdOf('file')}?expires=${expires}&signature=x`),
      ];
      expect(responses[1].headers['idempotent-replayed']).toBe('true');
      expect(responses.map((response) => response.status)).toEqual([
        200, 200, 200, 404, 400, 422, 415, 401, 400, 403, 403, 200, 401, 200, 200, 403,
      ]);
      responses.forEach(check);
    });

    it('on a 503 of a lost database, of a /v1 operation, readiness and a signed file route', async () => {
      const lost = () => Promise.reject(new Error('Connection terminated unexpectedly'));
      const spies = [
        jest.spyOn(MembersService.prototype, 'get').mockImplementationOnce(lost),
        jest.spyOn(DatabaseHealth.prototype, 'ping').mockImplementationOnce(lost),
        jest.spyOn(FilesRepository.prototype, 'findById').mockImplementationOnce(lost),
      ];
      try {
        const expires = Math.floor(Date.now() / 1000) + 600;
        const responses = [
          await suite.t.http.get(`/v1/members/${suite.ws.memberId}`).set(v1Headers(suite.ws.key)),
          await suite.t.http.get('/health/ready'),
          await suite.t.http.get(`/downloads/${exampleIdOf('file')}?expires=${expires}&signature=x`),
        ];
        for (const response of responses) expectError(response, 503, 'database_unavailable');
        responses.forEach(check);
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    });

    it('on a 429 of the rate limit and of failed authentications', async () => {
      const strict = await createTestApp({ env: { RATE_LIMIT_READ: '1', AUTH_FAILURE_LIMIT_PER_MINUTE: '1' } });
      try {
        const ws = await createWorkspace(strict.http);
        let limited: Response | undefined;
        for (let attempt = 0; attempt < 10 && limited?.status !== 429; attempt += 1) {
          limited = await strict.http.get('/v1/auth/validate').set(v1Headers(ws.key));
        }
        expectError(limited!, 429, 'rate_limited');
        let failed: Response | undefined;
        for (let attempt = 0; attempt < 3 && failed?.status !== 429; attempt += 1) {
          failed = await strict.http.post('/admin/v1/workspaces').send({ name: 'Refused' });
        }
        expectError(failed!, 429, 'rate_limited');
        [limited!, failed!].forEach(check);
      } finally {
        await strict.close();
      }
    });

    it('declares each of them where it was seen', () => {
      expect(undeclared).toEqual([]);
      for (const header of PIPELINE_HEADERS)
        expect([...seen].some((entry) => entry.startsWith(`${header} `))).toBe(true);
      expect([...seen]).toEqual(
        expect.arrayContaining([
          'X-RateLimit-Limit 200',
          'X-RateLimit-Limit 503',
          'X-RateLimit-Limit 429',
          'Retry-After 503',
          'Retry-After 429',
        ]),
      );
    });
  });
});

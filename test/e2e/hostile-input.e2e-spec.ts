import type { Response } from 'supertest';
import { MAX_MESSAGE_LENGTH, MAX_PARAM_LENGTH } from '../../src/common/errors/api-error';
import { MAX_BODY_DEPTH } from '../../src/common/http/json-body';
import { apiSuite } from '../support/api-suite';
import { costGrowth } from '../support/cost-growth';
import { expectError } from '../support/errors';
import { documentOperations } from '../support/openapi';
import { adminHeaders, v1Headers } from '../support/test-app';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];

/** `{"a":{"a":…1…}}`: `levels` objects deep. */
function nestedObjects(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** A copy of `body` with the member at the dotted `path` set to null, or left out. */
function withMember(body: Record<string, unknown>, path: string, change: 'null' | 'absent'): Record<string, unknown> {
  const copy = structuredClone(body);
  const segments = path.split('.');
  const last = segments.pop()!;
  const parent = segments.reduce<Record<string, unknown>>(
    (node, segment) => node[segment] as Record<string, unknown>,
    copy,
  );
  if (change === 'null') parent[last] = null;
  else delete parent[last];
  return copy;
}

describe('hostile input: every bad input is a bounded 4xx, at a cost linear in its size', () => {
  const suite = apiSuite();
  let counter = 0;
  /** Unique within the test database: slugs, keys and emails of the bodies below. */
  const fresh = (prefix: string) => `${prefix}${process.pid}_${(counter += 1)}`;
  let pendingFileId: string;

  const typesPath = () => `/admin/v1/workspaces/${suite.ws.workspaceId}/object-types`;
  const admin = (path: string, body: unknown) =>
    suite.t.http
      .post(path)
      .set(adminHeaders())
      .send(body as object);
  const postText = (path: string, headers: Record<string, string>, text: string) =>
    suite.t.http.post(path).set(headers).set('Content-Type', 'application/json').send(text);

  const createFile = async (): Promise<string> => {
    const response = await suite.post('/v1/files', { filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 1 });
    expect(response.status).toBe(200);
    return response.body.id as string;
  };

  beforeAll(async () => {
    pendingFileId = await createFile();
  });

  /** Every route whose body is a class-validator DTO, with its credentials. */
  const dtoRoutes = (): [string, Record<string, string>][] => [
    ['/v1/files', v1Headers(suite.ws.key)],
    [`/v1/files/${pendingFileId}/complete`, v1Headers(suite.ws.key)],
    [`/v1/files/${pendingFileId}/cancel`, v1Headers(suite.ws.key)],
    ['/admin/v1/workspaces', adminHeaders()],
    [`/admin/v1/workspaces/${suite.ws.workspaceId}/members`, adminHeaders()],
    [`/admin/v1/workspaces/${suite.ws.workspaceId}/api-keys`, adminHeaders()],
    [typesPath(), adminHeaders()],
    [`${typesPath()}/task/fields`, adminHeaders()],
    [`${typesPath()}/task/relationships`, adminHeaders()],
  ];

  describe('nesting depth (refused by the JSON parser)', () => {
    it(`parses a body ${MAX_BODY_DEPTH} levels deep and refuses one level more with 400 invalid_json`, async () => {
      const atLimit = `{"name":${'['.repeat(MAX_BODY_DEPTH - 1)}${']'.repeat(MAX_BODY_DEPTH - 1)}}`;
      // Parsed, then refused by validation: a name is a string.
      expectError(await postText('/admin/v1/workspaces', adminHeaders(), atLimit), 400, 'invalid_type', 'name');
      const over = `{"name":${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}}`;
      const response = await postText('/admin/v1/workspaces', adminHeaders(), over);
      expectError(response, 400, 'invalid_json');
      expect(response.body.error.message).toContain(`${MAX_BODY_DEPTH} levels`);
    });

    it('does not count brackets inside strings, escaped quotes included', async () => {
      const name = `\\"${'['.repeat(150)}{`;
      const response = await postText('/admin/v1/workspaces', adminHeaders(), `{"name":"${name}"}`);
      expect(response.status).toBe(200);
      expect(response.body.name).toBe(`"${'['.repeat(150)}{`);
    });

    it('refuses 100,000 levels with 400 invalid_json on every DTO route, before parsing them', async () => {
      const deep = nestedObjects(100_000);
      // The application runs in this process: whatever parses JSON here is seen. Before the depth
      // limit, JSON.parse built the 100,000 levels and the validation walked them (230 ms of CPU a
      // request); the depth scan stops at the first level too deep (json-body.spec counts its reads).
      const parse = jest.spyOn(JSON, 'parse');
      try {
        for (const [path, headers] of dtoRoutes()) {
          const response = await postText(path, headers, deep);
          expectError(response, 400, 'invalid_json');
          // Refused by the depth scan on the bytes, before anything parsed or walked the levels.
          expect(response.body.error.message).toContain(`${MAX_BODY_DEPTH} levels`);
        }
        const parsedLengths = parse.mock.calls.map(([text]) => String(text).length);
        // The error bodies, which the client parses, are all that went through JSON.parse.
        expect(parsedLengths.filter((length) => length >= 1_000)).toEqual([]);
        expect(parsedLengths.length).toBeGreaterThan(0);
      } finally {
        parse.mockRestore();
      }
    });

    it('refuses a deep body on /v1 writes with an Idempotency-Key, and before authentication', async () => {
      for (const levels of [1_400, 5_000, 100_000]) {
        const body = `{"fields":{"$title":"x"},"deep":${nestedObjects(levels)}}`;
        const keyed = await postText(
          '/v1/notes',
          { ...v1Headers(suite.ws.key), 'Idempotency-Key': fresh('deep') },
          body,
        );
        expectError(keyed, 400, 'invalid_json');
        expectError(await postText('/v1/notes', {}, body), 400, 'invalid_json');
      }
    });

    it('answers 415 for a JSON body in UTF-16', async () => {
      const response = await suite.t.http
        .post('/admin/v1/workspaces')
        .set(adminHeaders())
        .set('Content-Type', 'application/json; charset=utf-16le')
        .send(Buffer.from('{"name":"x"}', 'utf16le'));
      expectError(response, 415, 'unsupported_media_type');
    });
  });

  describe('null for a member of a static body is the member absent', () => {
    interface Case {
      path: () => string;
      body: () => Record<string, unknown>;
      optional: string[];
      required: string[];
      /** What of a success the request made (default: the whole response). */
      made?: (response: Response, body: Record<string, unknown>) => unknown;
    }
    const cases: Record<string, Case> = {
      'POST /v1/files': {
        path: () => '/v1/files',
        body: () => ({ filename: 'a.vtt', mimeType: 'text/vtt', sizeBytes: 10, purpose: 'meeting_transcript' }),
        optional: ['purpose'],
        required: ['filename', 'mimeType', 'sizeBytes'],
      },
      'POST /admin/v1/workspaces': {
        path: () => '/admin/v1/workspaces',
        body: () => ({ name: 'W' }),
        optional: [],
        required: ['name'],
      },
      'POST /admin/v1/workspaces/{id}/members': {
        path: () => `/admin/v1/workspaces/${suite.ws.workspaceId}/members`,
        body: () => ({ email: `${fresh('m')}@example.com`, firstName: 'Ada', lastName: 'Lovelace', role: 'member' }),
        optional: ['firstName', 'lastName', 'role'],
        required: ['email'],
      },
      'POST /admin/v1/workspaces/{id}/api-keys': {
        path: () => `/admin/v1/workspaces/${suite.ws.workspaceId}/api-keys`,
        body: () => ({ memberId: suite.ws.memberId, scopes: ['notes:read'], name: 'reader' }),
        optional: ['name'],
        required: ['memberId', 'scopes'],
      },
      'POST /admin/v1/workspaces/{id}/object-types': {
        path: () => typesPath(),
        body: () => ({
          slug: fresh('t'),
          label: 'Type',
          fields: {
            pick: {
              label: 'Pick',
              valueType: 'SINGLE_SELECT',
              description: 'd',
              required: false,
              unique: false,
              typeConfiguration: {
                options: [{ id: 'one', label: 'One', description: 'd' }],
                multipleValues: false,
                unique: false,
              },
            },
            price: { label: 'Price', valueType: 'CURRENCY', typeConfiguration: { currency: 'EUR' } },
            handle: { label: 'Handle', valueType: 'SOCIAL_HANDLE', typeConfiguration: { handleService: 'TWITTER' } },
          },
          relationships: {
            client: {
              label: 'Client',
              cardinality: 'HAS_ONE',
              objectType: 'account',
              description: 'd',
              inverseKey: fresh('inv'),
              inverseLabel: 'Inverse',
            },
          },
        }),
        optional: [
          'fields',
          'relationships',
          'fields.pick.description',
          'fields.pick.required',
          'fields.pick.unique',
          'fields.pick.typeConfiguration',
          'fields.pick.typeConfiguration.options',
          'fields.pick.typeConfiguration.multipleValues',
          'fields.pick.typeConfiguration.unique',
          'fields.pick.typeConfiguration.options.0.id',
          'fields.pick.typeConfiguration.options.0.description',
          'fields.price.typeConfiguration',
          'fields.price.typeConfiguration.currency',
          'fields.handle.typeConfiguration.handleService',
          'relationships.client.description',
          'relationships.client.inverseKey',
          'relationships.client.inverseLabel',
        ],
        required: [
          'slug',
          'label',
          'fields.pick.label',
          'fields.pick.valueType',
          'fields.pick.typeConfiguration.options.0.label',
          'relationships.client.label',
          'relationships.client.cardinality',
          'relationships.client.objectType',
        ],
      },
      'POST /admin/v1/workspaces/{id}/object-types/{slug}/fields': {
        path: () => `${typesPath()}/task/fields`,
        body: () => ({
          key: fresh('f'),
          label: 'F',
          valueType: 'MULTI_SELECT',
          description: 'd',
          required: false,
          unique: false,
          typeConfiguration: { options: [{ id: 'a', label: 'A', description: 'd' }] },
        }),
        optional: [
          'description',
          'required',
          'unique',
          'typeConfiguration',
          'typeConfiguration.options.0.id',
          'typeConfiguration.options.0.description',
        ],
        required: ['key', 'label', 'valueType', 'typeConfiguration.options.0.label'],
        made: (response, body) => response.body.fieldDefinitions?.[body.key as string],
      },
      'POST /admin/v1/workspaces/{id}/object-types/{slug}/relationships': {
        path: () => `${typesPath()}/task/relationships`,
        body: () => ({
          key: fresh('r'),
          label: 'R',
          cardinality: 'HAS_MANY',
          objectType: 'account',
          description: 'd',
          inverseKey: fresh('inv'),
          inverseLabel: 'Inverse',
        }),
        optional: ['description', 'inverseKey', 'inverseLabel'],
        required: ['key', 'label', 'cardinality', 'objectType'],
        made: (response, body) => response.body.relationshipDefinitions?.[body.key as string],
      },
    };
    const send = (route: Case, body: unknown): Promise<Response> =>
      route.path().startsWith('/v1/') ? suite.post(route.path(), body) : admin(route.path(), body);
    const outcome = (response: Response) => [response.status, response.body.error?.code, response.body.error?.param];
    /** What the request made, with what differs between two requests anyway (fresh keys, ids, times, signatures) blanked. */
    const normalized = (route: Case, response: Response, body: Record<string, unknown>) =>
      JSON.stringify(route.made?.(response, body) ?? response.body)
        .replace(/[a-z]+\d+_\d+/g, 'FRESH')
        .replace(/\b[a-z]+_[0-9A-HJKMNP-TV-Z]{26}\b/g, 'ID')
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
        .replace(/(expires=|signature=|sk_)[^"&]+/g, '$1…');

    it.each(Object.keys(cases))(
      '%s: each optional member null answers as the member absent, and the body as given is valid',
      async (name) => {
        const route = cases[name];
        expect((await send(route, route.body())).status).toBe(200);
        for (const member of route.optional) {
          const [nullBody, absentBody] = [
            withMember(route.body(), member, 'null'),
            withMember(route.body(), member, 'absent'),
          ];
          const asNull = await send(route, nullBody);
          const absent = await send(route, absentBody);
          expect({ member, outcome: outcome(asNull), made: normalized(route, asNull, nullBody) }).toEqual({
            member,
            outcome: outcome(absent),
            made: normalized(route, absent, absentBody),
          });
          expect(asNull.status).toBeLessThan(500);
        }
      },
    );

    it.each(Object.keys(cases))('%s: each required member null is 422 parameter_missing naming it', async (name) => {
      const route = cases[name];
      for (const member of route.required) {
        expectError(await send(route, withMember(route.body(), member, 'null')), 422, 'parameter_missing', member);
      }
    });

    it('answers "purpose": null on POST /v1/files with the file created, as without a purpose', async () => {
      const response = await suite.post('/v1/files', {
        filename: 'a.txt',
        mimeType: 'text/plain',
        sizeBytes: 1,
        purpose: null,
      });
      expect(response.status).toBe(200);
      suite.openapi.assert(response);
    });

    it('answers complete with "md5": null as complete without md5', async () => {
      const asNull = await suite.post(`/v1/files/${await createFile()}/complete`, { md5: null });
      const absent = await suite.post(`/v1/files/${await createFile()}/complete`, {});
      expect(outcome(asNull)).toEqual(outcome(absent));
      expect(asNull.status).toBeLessThan(500);
    });

    it('answers cancel with a member, null or not, as an unknown field: it takes none', async () => {
      expectError(
        await suite.post(`/v1/files/${pendingFileId}/cancel`, { reason: null }),
        400,
        'unknown_field',
        'reason',
      );
    });
  });

  describe('text PostgreSQL cannot store (lone surrogates, NUL) is 422 invalid_value, as in record fields', () => {
    it.each([
      [
        'a member email',
        () => [`/admin/v1/workspaces/${suite.ws.workspaceId}/members`, { email: '\ud800@x.example.com' }],
        'email',
      ],
      [
        'a member name',
        () => [
          `/admin/v1/workspaces/${suite.ws.workspaceId}/members`,
          { email: `${fresh('s')}@example.com`, lastName: 'A\udc00' },
        ],
        'lastName',
      ],
      ['a workspace name with NUL', () => ['/admin/v1/workspaces', { name: 'a\u0000b' }], 'name'],
      [
        'an API key name',
        () => [
          `/admin/v1/workspaces/${suite.ws.workspaceId}/api-keys`,
          { memberId: suite.ws.memberId, scopes: ['*'], name: '\udfff' },
        ],
        'name',
      ],
      [
        'an option label of a new type',
        () => [
          typesPath(),
          {
            slug: fresh('t'),
            label: 'T',
            fields: {
              st: { label: 'S', valueType: 'SINGLE_SELECT', typeConfiguration: { options: [{ label: '\ud800' }] } },
            },
          },
        ],
        'fields.st.typeConfiguration.options.0.label',
      ],
      [
        'a field key of a new type',
        () => [
          typesPath(),
          { slug: fresh('t'), label: 'T', fields: { ['a\ud800']: { label: 'S', valueType: 'TEXT' } } },
        ],
        'fields.a\ud800',
      ],
      ['a type label', () => [typesPath(), { slug: fresh('t'), label: 'T\ud800' }], 'label'],
      [
        'an option label of an added field',
        () => [
          `${typesPath()}/task/fields`,
          {
            key: fresh('f'),
            label: 'S',
            valueType: 'MULTI_SELECT',
            typeConfiguration: { options: [{ label: 'ok' }, { label: 'x\udc00y' }] },
          },
        ],
        'typeConfiguration.options.1.label',
      ],
      [
        'a relationship label',
        () => [
          `${typesPath()}/task/relationships`,
          { key: fresh('r'), label: '\ud800', cardinality: 'HAS_ONE', objectType: 'account' },
        ],
        'label',
      ],
    ] as [string, () => [string, unknown], string][])('refuses %s', async (_case, request, param) => {
      const [path, body] = request();
      const response = await admin(path, body);
      expectError(response, 422, 'invalid_value', param);
      suite.openapi.assert(response);
    });

    it('refuses a filename, rather than storing a replacement character', async () => {
      const before = (await suite.get('/v1/files')).body.totalCount as number;
      const response = await suite.post('/v1/files', { filename: 'a\ud800.txt', mimeType: 'text/plain', sizeBytes: 1 });
      expectError(response, 422, 'invalid_value', 'filename');
      expect((await suite.get('/v1/files')).body.totalCount).toBe(before);
    });

    it('keeps the code and param of record fields', async () => {
      expectError(
        await suite.post('/v1/notes', { fields: { $title: 'a\ud800' } }),
        422,
        'invalid_value',
        'fields.$title',
      );
    });
  });

  describe('a string where a definition object is expected is refused at once', () => {
    const huge = 'x'.repeat(300_000);

    it.each([
      [
        'a fields entry',
        (text = huge) => [typesPath(), { slug: fresh('t'), label: 'T', fields: { big: text } }],
        'fields.big',
      ],
      [
        'a relationships entry',
        (text = huge) => [typesPath(), { slug: fresh('t'), label: 'T', relationships: { big: text } }],
        'relationships.big',
      ],
      [
        'a typeConfiguration',
        (text = huge) => [
          typesPath(),
          { slug: fresh('t'), label: 'T', fields: { big: { label: 'B', valueType: 'TEXT', typeConfiguration: text } } },
        ],
        'fields.big.typeConfiguration',
      ],
      [
        'an option',
        (text = huge) => [
          `${typesPath()}/task/fields`,
          { key: fresh('f'), label: 'B', valueType: 'SINGLE_SELECT', typeConfiguration: { options: [text] } },
        ],
        'typeConfiguration.options.0',
      ],
    ] as [string, (text?: string) => [string, unknown], string][])(
      'answers 400 invalid_type for a 300,000-character string as %s, at once',
      async (_case, request, param) => {
        const [path, body] = request();
        expectError(await admin(path, body), 400, 'invalid_type', param);
        // At once: a string 64 times as long is refused in about the same time (the round trip's
        // fixed cost outweighs carrying and parsing the longer body), where reading it as an object,
        // one key per character, takes several times as long. Bodies are serialized beforehand.
        const withText = (length: number) => JSON.stringify(request('x'.repeat(length))[1]);
        const refuse = async (json: string) =>
          expectError(await postText(path, adminHeaders(), json), 400, 'invalid_type', param);
        expect(await costGrowth(refuse, withText(2_500), withText(160_000))).toBeLessThan(4);
      },
    );

    it('keeps serving other requests meanwhile', async () => {
      const [refused, health] = await Promise.all([
        admin(typesPath(), {
          slug: fresh('t'),
          label: 'T',
          fields: Object.fromEntries([1, 2, 3].map((n) => [`f${n}`, huge.slice(n)])),
        }),
        suite.t.http.get('/health'),
      ]);
      expect([refused.status, health.status]).toEqual([400, 200]);
    });
  });

  describe('prototype-named keys', () => {
    it.each(PROTOTYPE_NAMES)(
      'answers 400 unknown_field for a body member named %s on every DTO route',
      async (name) => {
        for (const [path, headers] of dtoRoutes()) {
          expectError(await postText(path, headers, `{"${name}":{"x":1}}`), 400, 'unknown_field', name);
        }
        const file = `{"filename":"a.txt","mimeType":"text/plain","sizeBytes":1,"${name}":"x"}`;
        expectError(await postText('/v1/files', v1Headers(suite.ws.key), file), 400, 'unknown_field', name);
      },
    );

    it.each(PROTOTYPE_NAMES)(
      'answers 400 unknown_field for %s inside a field definition and an option',
      async (name) => {
        const inField = `{"slug":"${fresh('t')}","label":"T","fields":{"f":{"label":"F","valueType":"TEXT","${name}":1}}}`;
        expectError(await postText(typesPath(), adminHeaders(), inField), 400, 'unknown_field', `fields.f.${name}`);
        const inOption = `{"key":"${fresh('f')}","label":"F","valueType":"SINGLE_SELECT","typeConfiguration":{"options":[{"label":"A","${name}":1}]}}`;
        expectError(
          await postText(`${typesPath()}/task/fields`, adminHeaders(), inOption),
          400,
          'unknown_field',
          `typeConfiguration.options.0.${name}`,
        );
      },
    );

    it('takes constructor, toString, valueOf and hasOwnProperty as custom field and relationship keys of a new type', async () => {
      const keys = PROTOTYPE_NAMES.filter((name) => name !== '__proto__');
      const body = {
        slug: fresh('t'),
        label: 'T',
        fields: Object.fromEntries(keys.map((key) => [key, { label: key, valueType: 'TEXT' }])),
        relationships: {
          [`${keys[0]}Of`]: { label: 'R', cardinality: 'HAS_ONE', objectType: 'account', inverseKey: fresh('inv') },
        },
      };
      const response = await admin(typesPath(), body);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body.fieldDefinitions).sort()).toEqual([...keys].sort());
    });

    it('refuses __proto__ as a custom key like any key outside the pattern', async () => {
      const body = `{"slug":"${fresh('t')}","label":"T","fields":{"__proto__":{"label":"P","valueType":"TEXT"}}}`;
      expectError(await postText(typesPath(), adminHeaders(), body), 422, 'invalid_value', 'fields.__proto__.key');
    });

    it.each(PROTOTYPE_NAMES)('hands ?%s=1 to the handlers as a query parameter, which refuse it', async (name) => {
      expectError(await suite.get(`/v1/notes?${name}=1`), 400, 'unknown_field', name);
      expectError(await suite.get(`/v1/files?${name}=1`), 400, 'invalid_parameter', name);
      expectError(await suite.get(`/v1/auth/validate?${name}=1`), 400, 'invalid_parameter', name);
    });
  });

  describe('query parameters', () => {
    const TESTED_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
    const isTestedMethod = (method: string): method is (typeof TESTED_METHODS)[number] =>
      (TESTED_METHODS as readonly string[]).includes(method);
    /** Every documented operation that takes no query parameters, with credentials and placeholder path ids. */
    const operationsWithoutQuery = () =>
      [...documentOperations(suite.t.document)].flatMap(([route, operation]) => {
        const [verb, path] = route.split(' ');
        const method = verb.toLowerCase();
        if (!isTestedMethod(method) || (operation.parameters ?? []).some((p) => 'in' in p && p.in === 'query'))
          return [];
        const security = Object.keys(Object.assign({}, ...(operation.security ?? [])) as object);
        const headers = security.includes('adminToken')
          ? adminHeaders()
          : security.includes('apiKey')
            ? v1Headers(suite.ws.key)
            : {};
        return [{ method, path: path.replace(/\{[^}]+\}/g, 'placeholder'), headers }];
      });

    it('answers 400 invalid_parameter for an unknown query parameter on every operation that takes none', async () => {
      const operations = operationsWithoutQuery();
      expect(operations.map(({ method, path }) => `${method} ${path}`)).toEqual(
        expect.arrayContaining([
          'get /v1/auth/validate',
          'get /v1/objects',
          'get /v1/members/placeholder',
          'get /v1/notes/placeholder',
          'get /v1/notes/definitions',
          'post /v1/files',
          'post /admin/v1/workspaces',
          'get /health',
        ]),
      );
      for (const { method, path, headers } of operations) {
        const request = suite.t.http[method](`${path}?unexpected=1`).set(headers);
        const response = await (method === 'get' ? request : request.send({}));
        expectError(response, 400, 'invalid_parameter', 'unexpected');
        suite.openapi.assert(response);
      }
    });

    it('still refuses an unknown parameter after authentication, not before', async () => {
      expectError(await suite.t.http.get('/v1/auth/validate?unexpected=1'), 401, 'invalid_api_key');
    });

    it('leaves the parameters of routes that take them to those routes', async () => {
      expect((await suite.get('/v1/notes?limit=1')).status).toBe(200);
      expect((await suite.get('/v1/files?offset=0')).status).toBe(200);
    });
  });

  describe('undecodable and odd paths', () => {
    it.each([
      ['GET', '/v1/notes/%ZZ'],
      ['GET', '/v1/notes/%'],
      ['GET', '/v1/notes/abc%2'],
      ['GET', '/v1/notes/%C0%80'],
      ['GET', '/v1/notes/%ED%A0%80'],
      ['GET', '/v1/members/%FF'],
      ['GET', '/v1/objects/%ZZ/values/%ZZ'],
      ['POST', '/v1/files/%ZZ/complete'],
      ['POST', '/admin/v1/api-keys/%E0%A4%A/revoke'],
    ])(
      'answers %s %s, which does not percent-decode, with 404 not_found, with or without credentials',
      async (method, path) => {
        const credentials = path.startsWith('/admin') ? adminHeaders() : v1Headers(suite.ws.key);
        for (const headers of [credentials, {}]) {
          const request = method === 'GET' ? suite.t.http.get(path) : suite.t.http.post(path).send({});
          expectError(await request.set(headers), 404, 'not_found');
        }
      },
    );

    it.each([
      ['NUL', '/v1/notes/%00'],
      ['an encoded slash', '/v1/notes/note_%2F'],
      ['an 8,000-character segment', `/v1/notes/${'n'.repeat(8000)}`],
      ['an 8,000-character id of the right prefix', `/v1/members/mem_${'0'.repeat(8000)}`],
    ])('answers an id with %s with 404 not_found', async (_case, path) => {
      expectError(await suite.get(path), 404, 'not_found');
    });
  });

  describe('errors echo a bounded prefix of the input', () => {
    const big = 'x'.repeat(70_000);
    const expectBounded = (response: Response, status: number, code: string) => {
      expectError(response, status, code);
      expect(response.body.error.message.length).toBeLessThanOrEqual(MAX_MESSAGE_LENGTH + 1);
      expect((response.body.error.param ?? '').length).toBeLessThanOrEqual(MAX_PARAM_LENGTH + 1);
      expect(response.text.length).toBeLessThan(2_000);
    };

    it('cuts a 70 KB relationship id of a record to a prefix', async () => {
      const response = await suite.post('/v1/notes', {
        fields: { $title: 'a' },
        relationships: { $account: `acc_${big}` },
      });
      expectBounded(response, 422, 'relationship_entity_missing');
      expect(response.body.error.message).toContain(`acc_${'x'.repeat(50)}`);
      expect(response.body.error.message).toMatch(/…/);
    });

    it('cuts a 70 KB member id of an API key to a prefix', async () => {
      const response = await admin(`/admin/v1/workspaces/${suite.ws.workspaceId}/api-keys`, {
        memberId: `mem_${big}`,
        scopes: ['*'],
      });
      expectBounded(response, 422, 'relationship_entity_missing');
      expect(response.body.error.param).toBe('memberId');
    });

    it('cuts a 70 KB unknown member name, in message and param', async () => {
      expectBounded(await suite.post('/v1/files', { [big]: 1 }), 400, 'unknown_field');
      expectBounded(await suite.post('/v1/notes', { fields: { $title: 'a', [big]: 1 } }), 400, 'unknown_field');
    });

    it('cuts a 70 KB unknown relationship key, in message and param', async () => {
      const response = await suite.post('/v1/notes', {
        fields: { $title: 'a' },
        relationships: { [`$${big}`]: 'acc_1' },
      });
      expectBounded(response, 400, 'unknown_relationship');
      expect(response.body.error.param).toMatch(/^relationships\.\$x+…$/);
    });

    it('cuts a long query parameter name and a long path', async () => {
      const name = 'q'.repeat(8000);
      expectBounded(await suite.get(`/v1/auth/validate?${name}=1`), 400, 'invalid_parameter');
      expectBounded(await suite.get(`/v1/notes?${name}=1`), 400, 'unknown_field');
      expectBounded(
        await suite.t.http.delete(`/v1/notes/${'n'.repeat(8000)}`).set(v1Headers(suite.ws.key)),
        405,
        'method_not_allowed',
      );
    });
  });

  describe('select options', () => {
    it('refuses an option without a label with 422 parameter_missing, on a new type and an added field', async () => {
      const created = await admin(typesPath(), {
        slug: fresh('t'),
        label: 'T',
        fields: {
          st: { label: 'S', valueType: 'SINGLE_SELECT', typeConfiguration: { options: [{ label: 'A' }, { id: 'b' }] } },
        },
      });
      expectError(created, 422, 'parameter_missing', 'fields.st.typeConfiguration.options.1.label');
      const added = await admin(`${typesPath()}/task/fields`, {
        key: fresh('f'),
        label: 'S',
        valueType: 'MULTI_SELECT',
        typeConfiguration: { options: [{ id: 'a' }] },
      });
      expectError(added, 422, 'parameter_missing', 'typeConfiguration.options.0.label');
    });

    it.each([
      ['an empty array as an option', { options: [[]] }, 'typeConfiguration.options.0'],
      ['an array of options as an option', { options: [[{ label: 'A' }]] }, 'typeConfiguration.options.0'],
      ['a string as an option', { options: ['A'] }, 'typeConfiguration.options.0'],
      ['an array as the typeConfiguration', [], 'typeConfiguration'],
      ['an array of configurations as the typeConfiguration', [{ options: [{ label: 'A' }] }], 'typeConfiguration'],
    ])('answers 400 invalid_type for %s, never a labelless option', async (_case, typeConfiguration, param) => {
      const response = await admin(`${typesPath()}/task/fields`, {
        key: fresh('f'),
        label: 'S',
        valueType: 'SINGLE_SELECT',
        typeConfiguration,
      });
      expectError(response, 400, 'invalid_type', param);
    });

    it('serves every option of a select field with its label', async () => {
      const response = await admin(`${typesPath()}/task/fields`, {
        key: fresh('f'),
        label: 'S',
        valueType: 'SINGLE_SELECT',
        typeConfiguration: { options: [{ label: 'A' }, { id: 'b', label: 'B' }] },
      });
      expect(response.status).toBe(200);
      const definitions = Object.values<{ typeConfiguration: { options?: { label?: string }[] } }>(
        response.body.fieldDefinitions,
      );
      for (const definition of definitions) {
        for (const option of definition.typeConfiguration.options ?? []) expect(typeof option.label).toBe('string');
      }
    });
  });
});

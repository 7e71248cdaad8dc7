import { gzipSync } from 'node:zlib';
import { DataSource } from 'typeorm';
import { BODY_LIMIT_BYTES } from '../../src/common/http/json-body';
import { expectError } from '../support/errors';
import { createKey, createWorkspace, TestWorkspace } from '../support/factories';
import { StdoutCapture } from '../support/log-capture';
import { scrapeMetrics } from '../support/metrics';
import { OpenApiValidator } from '../support/openapi';
import {
  CRASH_MESSAGE,
  ensureProbeTable,
  FailureProbeController,
  probeRows,
  WriteProbeController,
} from '../support/probe-controllers';
import { adminHeaders, createTestApp, TEST_ADMIN_TOKEN, TestApp, v1Headers } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A JSON object body of exactly `bytes` bytes. */
function jsonOfSize(bytes: number): string {
  const frame = JSON.stringify({ name: '' });
  return JSON.stringify({ name: 'x'.repeat(bytes - frame.length) });
}

describe('request pipeline', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let openapi: OpenApiValidator;

  beforeAll(async () => {
    t = await createTestApp({
      controllers: [FailureProbeController, WriteProbeController],
      env: { METRICS_PORT: '0' },
    });
    await ensureProbeTable(t.app.get(DataSource));
    ws = await createWorkspace(t.http);
    openapi = new OpenApiValidator(t.document);
  });
  afterAll(() => t.close());

  describe('body parsing comes first', () => {
    it.each([
      ['truncated JSON', '{"label":'],
      ['a trailing comma', '{"label":"a",}'],
      ['single quotes', "{'label':'a'}"],
    ])('answers 400 invalid_json for %s, before the key is even checked', async (_case, body) => {
      const label = `bad-json-${Date.now()}`;
      for (const headers of [v1Headers(ws.key), {}]) {
        const response = await t.http
          .post('/v1/test-probe/items')
          .set(headers)
          .set('Content-Type', 'application/json')
          .send(body.replace('"a"', `"${label}"`));
        expectError(response, 400, 'invalid_json');
      }
      expect(await probeRows(t.app.get(DataSource), label)).toEqual([]);
    });

    it.each([
      ['an array', '[{"label":"a"}]'],
      ['a string', '"label"'],
      ['null', 'null'],
      ['a number', '42'],
    ])('answers 400 invalid_json when the body is %s rather than an object', async (_case, body) => {
      const response = await t.http
        .post('/admin/v1/workspaces')
        .set(adminHeaders())
        .set('Content-Type', 'application/json')
        .send(body);
      expectError(response, 400, 'invalid_json');
      openapi.assert(response);
    });

    it.each([
      ['text/plain', 'name=Acme'],
      ['application/x-www-form-urlencoded', 'name=Acme'],
      ['application/xml', '<name>Acme</name>'],
    ])('answers 415 unsupported_media_type for a %s body', async (type, body) => {
      const response = await t.http
        .post('/admin/v1/workspaces')
        .set(adminHeaders())
        .set('Content-Type', type)
        .send(body);
      expectError(response, 415, 'unsupported_media_type');
      openapi.assert(response);
      const v1 = await t.http.post('/v1/test-probe/items').set(v1Headers(ws.key)).set('Content-Type', type).send(body);
      expectError(v1, 415, 'unsupported_media_type');
    });

    it('answers 415 for a JSON body in another charset', async () => {
      const response = await t.http
        .post('/admin/v1/workspaces')
        .set(adminHeaders())
        .set('Content-Type', 'application/json; charset=latin1')
        .send('{"name":"Acme"}');
      expectError(response, 415, 'unsupported_media_type');
    });

    it('accepts a body of exactly 1 MiB and answers 413 payload_too_large one byte over', async () => {
      const atLimit = await t.http
        .post('/admin/v1/workspaces')
        .set(adminHeaders())
        .set('Content-Type', 'application/json')
        .send(jsonOfSize(BODY_LIMIT_BYTES));
      // Parsed, then refused by validation (a name is at most 200 characters): not by the parser.
      expectError(atLimit, 422, 'invalid_value', 'name');

      const over = await t.http
        .post('/admin/v1/workspaces')
        .set(adminHeaders())
        .set('Content-Type', 'application/json')
        .send(jsonOfSize(BODY_LIMIT_BYTES + 1));
      expectError(over, 413, 'payload_too_large');
      openapi.assert(over);
    });

    it.each(['/v1/test-probe/items', '/admin/v1/workspaces'])(
      'answers 415 for POST %s with a Content-Type that does not parse',
      async (path) => {
        const response = await t.http
          .post(path)
          .set(v1Headers(ws.key))
          .set(adminHeaders())
          .set('Content-Type', 'not a type')
          .send('{}');
        expectError(response, 415, 'unsupported_media_type');
        expect(response.body.error.message).toBe('Send the body as Content-Type: application/json');
      },
    );

    it('parses a body on any method of the API: GET and DELETE bodies are refused like a POST body', async () => {
      const get = await t.http
        .get('/v1/members')
        .set(v1Headers(ws.key))
        .set('Content-Type', 'application/json')
        .send('{"a":');
      expectError(get, 400, 'invalid_json');
      const untyped = await t.http
        .delete('/v1/test-probe/items')
        .set(v1Headers(ws.key))
        .set('Content-Type', '')
        .send('x');
      expectError(untyped, 415, 'unsupported_media_type');
    });

    it('reads a gzip-encoded body and one that starts with a byte order mark; refuses an unknown encoding', async () => {
      const body = { name: `Encoded ${Date.now()}` };
      const gzipped = await t.http
        .post('/admin/v1/workspaces')
        .set(adminHeaders())
        .set({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' })
        // superagent would JSON-encode a Buffer sent as application/json: send the bytes as they are.
        .serialize((bytes: Buffer) => bytes as unknown as string)
        .send(gzipSync(JSON.stringify(body)));
      expect([gzipped.status, gzipped.body.name]).toEqual([200, body.name]);
      const marked = await t.http
        .post('/admin/v1/workspaces')
        .set(adminHeaders())
        .set('Content-Type', 'application/json')
        .send(`\uFEFF${JSON.stringify(body)}`);
      expect([marked.status, marked.body.name]).toEqual([200, body.name]);
      // Also names that an object has by inheritance: the encoding is a client's word, not a property.
      for (const encoding of ['zstd-ish', 'constructor', '__proto__', 'toString']) {
        const unknown = await t.http
          .post('/admin/v1/workspaces')
          .set(adminHeaders())
          .set({ 'Content-Type': 'application/json', 'Content-Encoding': encoding })
          .send(JSON.stringify(body));
        expectError(unknown, 415, 'unsupported_media_type');
      }
    });

    it.each([
      ['not gzip at all', Buffer.from('{"name":"x"}')],
      ['a gzip stream cut short', gzipSync(JSON.stringify({ name: 'x' })).subarray(0, 12)],
    ])('refuses a gzip body that is %s with 400 invalid_json', async (_case, bytes) => {
      const response = await t.http
        .post('/admin/v1/workspaces')
        .set(adminHeaders())
        .set({ 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' })
        .serialize((sent: Buffer) => sent as unknown as string)
        .send(bytes);
      expectError(response, 400, 'invalid_json');
    });

    it('answers 413 for an oversized /v1 body too', async () => {
      const response = await t.http
        .post('/v1/test-probe/items')
        .set(v1Headers(ws.key))
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ label: 'x'.repeat(BODY_LIMIT_BYTES) }));
      expectError(response, 413, 'payload_too_large');
    });
  });

  describe('routing', () => {
    it.each([
      ['GET', '/nope'],
      ['GET', '/v1'],
      ['GET', '/v1/nope'],
      ['POST', '/v1/nope'],
      ['GET', '/v1/members/mem_01JD6Y3Z8Q0N5V4W7X2C9B1A3E/extra'],
      ['POST', '/admin/v1/nope'],
      ['DELETE', '/health/nope'],
    ])('answers 404 not_found for the unknown route %s %s', async (method, path) => {
      const response = await t.http[method.toLowerCase() as 'get' | 'post' | 'delete'](path).set(v1Headers(ws.key));
      expectError(response, 404, 'not_found');
      expect(response.headers.allow).toBeUndefined();
    });

    it.each([
      ['DELETE', '/v1/members', 'GET, HEAD'],
      ['POST', '/v1/members', 'GET, HEAD'],
      ['PUT', '/v1/members/mem_01JD6Y3Z8Q0N5V4W7X2C9B1A3E', 'GET, HEAD'],
      ['PATCH', '/v1/auth/validate', 'GET, HEAD'],
      ['GET', '/admin/v1/workspaces', 'POST'],
      ['DELETE', '/admin/v1/api-keys/key_01JD6Y3Z8Q0N5V4W7X2C9B1A3E/revoke', 'POST'],
      ['POST', '/health', 'GET, HEAD'],
    ])('answers 405 for %s %s with Allow: %s', async (method, path, allow) => {
      // Routing comes before authentication: no key needed to learn that the method is wrong.
      for (const headers of [v1Headers(ws.key), {}]) {
        const response =
          await t.http[method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](path).set(headers);
        expectError(response, 405, 'method_not_allowed');
        expect(response.headers.allow).toBe(allow);
        expect(response.body.error.message).toContain(allow);
      }
    });

    describe('every path of the OpenAPI document', () => {
      const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
      const templateSegments = (path: string) => path.split('/').slice(1);
      /** The path with a value in each parameter: `/v1/files/{id}/cancel` → `/v1/files/p-1/cancel`. */
      const concrete = (template: string) => template.replace(/\{[^}]+\}/g, 'p-1');
      /** What `Allow` must say for `path`: the methods of every template of the document it matches, HEAD with GET, sorted. */
      const documentedAllow = (path: string): string => {
        const actual = templateSegments(path);
        const methods = new Set<string>();
        for (const [template, item] of Object.entries(t.document.paths)) {
          const segments = templateSegments(template);
          const matches =
            segments.length === actual.length &&
            segments.every((segment, index) => /^\{.+\}$/.test(segment) || segment === actual[index]);
          if (!matches) continue;
          for (const method of METHODS)
            if ((item as Record<string, unknown>)[method.toLowerCase()]) methods.add(method);
        }
        if (methods.has('GET')) methods.add('HEAD');
        return [...methods].sort().join(', ');
      };
      const paths = () => Object.keys(t.document.paths).map(concrete);

      it('answers HEAD on a path without GET with 405, its Allow and no body, and HEAD on a path with GET as GET', async () => {
        expect(paths()).toEqual(
          expect.arrayContaining(['/v1/files/p-1/cancel', '/v1/objects/p-1/values', '/admin/v1/workspaces']),
        );
        for (const path of paths()) {
          const allow = documentedAllow(path);
          const response = await t.http.head(path);
          if (allow.includes('GET')) {
            expect([path, response.status === 405, response.headers.allow]).toEqual([path, false, undefined]);
          } else {
            expect([path, response.status, response.headers.allow, response.text]).toEqual([
              path,
              405,
              allow,
              undefined,
            ]);
          }
        }
      });

      it('answers every other method a path lacks with 405 and its Allow', async () => {
        for (const path of paths()) {
          const allow = documentedAllow(path);
          for (const method of METHODS.filter((method) => !allow.split(', ').includes(method))) {
            const response = await t.http[method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](path);
            expect([method, path, response.status, response.headers.allow, response.body.error?.code]).toEqual([
              method,
              path,
              405,
              allow,
              'method_not_allowed',
            ]);
          }
        }
      });
    });

    it('routes a path without regard to case or a trailing slash', async () => {
      for (const path of ['/v1/members/', '/V1/Members', `/v1/members/${ws.memberId}/`]) {
        const response = await t.http.get(path).set(v1Headers(ws.key));
        expect([path, response.status]).toEqual([path, 200]);
      }
    });

    it('answers a path that does not percent-decode with 404 not_found, a request id and a metric', async () => {
      const response = await t.http.get('/v1/members/%ZZ').set(v1Headers(ws.key)).set('X-Request-Id', 'undecodable-1');
      expectError(response, 404, 'not_found');
      expect(response.headers['x-request-id']).toBe('undecodable-1');
      const metrics = await scrapeMetrics(t);
      expect(metrics).toMatch(/http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]/);
    });

    it('answers HEAD on a GET route like GET, without a body', async () => {
      const response = await t.http.head(`/v1/members/${ws.memberId}`).set(v1Headers(ws.key));
      expect(response.status).toBe(200);
      expect(response.text).toBeUndefined();
    });
  });

  describe('failures never leak', () => {
    it('answers 500 internal_error for a crash, without its message or stack', async () => {
      const response = await t.http.get('/v1/test-probe/crash').set(v1Headers(ws.key));
      expectError(response, 500, 'internal_error');
      expect(response.body).toEqual({
        error: { type: 'internal_server_error', code: 'internal_error', message: 'An unexpected error occurred' },
      });
      expect(response.text).not.toContain('probe-crash-detail');
      expect(response.text).not.toMatch(/\.ts:\d+|\.js:\d+|Error:/);
    });

    it('answers 500 internal_error for invalid SQL, without the SQL or the driver message', async () => {
      const response = await t.http.get('/v1/test-probe/bad-sql').set(v1Headers(ws.key));
      expectError(response, 500, 'internal_error');
      expect(response.text).not.toMatch(/secret_column|no_such_table_probe|SELECT|relation|does not exist|42P01/i);
    });

    it('answers 409 duplicate_value for a unique violation, without the constraint, key or SQL', async () => {
      const response = await t.http.get('/v1/test-probe/duplicate').set(v1Headers(ws.key));
      expectError(response, 409, 'duplicate_value');
      expect(response.text).not.toMatch(/workspaces_pkey|Key \(|INSERT|wks_|23505|duplicate key/i);
    });

    it('answers 503 database_unavailable with Retry-After when the database drops the connection, then recovers', async () => {
      const response = await t.http.get('/v1/test-probe/connection-lost').set(v1Headers(ws.key));
      expectError(response, 503, 'database_unavailable');
      expect(response.headers['retry-after']).toBe('1');
      expect(response.text).not.toMatch(/terminat|administrator|57P01|pg_/i);
      // The terminated session's connection leaves the pool once its socket closes, which may be
      // just after the answer above: a request in that instant may still get 503, the next 200.
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 5 && statuses.at(-1) !== 200; attempt += 1) {
        const after = await t.http.get('/v1/auth/validate').set(v1Headers(ws.key));
        statuses.push(after.status);
        if (after.status !== 200) expectError(after, 503, 'database_unavailable');
      }
      expect(statuses.at(-1)).toBe(200);
      expect(statuses.length).toBeLessThanOrEqual(2);
    });

    it('answers with the error body when the key is refused, the version is wrong or the scope is missing', async () => {
      expectError(await t.http.get('/v1/test-probe/crash'), 401, 'invalid_api_key');
      expectError(
        await t.http.get('/v1/test-probe/crash').set({ Authorization: `Bearer ${ws.key}` }),
        400,
        'version_header',
        'Service-Version',
      );
      const narrow = await createKey(t.http, ws.workspaceId, ws.memberId, ['notes:read']);
      expectError(await t.http.get('/v1/members').set(v1Headers(narrow.key)), 403, 'insufficient_scope');
    });
  });

  describe('X-Request-Id', () => {
    it.each([
      [
        'a success',
        (id: string) => t.http.get('/v1/auth/validate').set(v1Headers(ws.key)).set('X-Request-Id', id),
        200,
      ],
      ['a 401', (id: string) => t.http.get('/v1/auth/validate').set('X-Request-Id', id), 401],
      ['an unknown route', (id: string) => t.http.get('/nope').set('X-Request-Id', id), 404],
      [
        'malformed JSON',
        (id: string) =>
          t.http
            .post('/v1/test-probe/items')
            .set(v1Headers(ws.key))
            .set({ 'X-Request-Id': id, 'Content-Type': 'application/json' })
            .send('{'),
        400,
      ],
      [
        'a 415',
        (id: string) =>
          t.http
            .post('/admin/v1/workspaces')
            .set(adminHeaders())
            .set({ 'X-Request-Id': id, 'Content-Type': 'text/plain' })
            .send('x'),
        415,
      ],
      [
        'a crash',
        (id: string) => t.http.get('/v1/test-probe/crash').set(v1Headers(ws.key)).set('X-Request-Id', id),
        500,
      ],
    ])('echoes a safe client id on %s', async (_case, send, status) => {
      const id = `client-${Date.now()}.req:42_A`;
      const response = await send(id);
      expect(response.status).toBe(status);
      expect(response.headers['x-request-id']).toBe(id);
    });

    it.each([
      ['spaces', 'has spaces in it'],
      ['a quote', 'abc"def'],
      ['129 characters', 'a'.repeat(129)],
      ['a newline escape', 'abc%0Adef'],
      ['non-ASCII', 'idé'],
    ])('replaces an unsafe client id (%s) with a generated one', async (_case, given) => {
      const response = await t.http.get('/v1/auth/validate').set(v1Headers(ws.key)).set('X-Request-Id', given);
      expect(response.status).toBe(200);
      expect(response.headers['x-request-id']).toMatch(UUID);
    });

    it('keeps an id of 128 safe characters', async () => {
      const id = 'A'.repeat(128);
      const response = await t.http.get('/health').set('X-Request-Id', id);
      expect(response.headers['x-request-id']).toBe(id);
    });

    it('generates a distinct id for each request that sends none, including refused ones', async () => {
      const responses = [
        await t.http.get('/v1/auth/validate').set(v1Headers(ws.key)),
        await t.http.get('/v1/auth/validate'),
        await t.http.post('/admin/v1/workspaces').set(adminHeaders()).set('Content-Type', 'application/json').send('{'),
        await t.http.get('/nope'),
      ];
      const ids = responses.map((response) => response.headers['x-request-id']);
      for (const id of ids) expect(id).toMatch(UUID);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });
});

describe('logs', () => {
  let capture: StdoutCapture;
  let t: TestApp;
  let ws: TestWorkspace;

  beforeAll(async () => {
    capture = new StdoutCapture();
    t = await createTestApp({ env: { LOG_LEVEL: 'info' }, controllers: [FailureProbeController] });
    ws = await createWorkspace(t.http);
  });
  afterAll(async () => {
    await t.close();
    capture.restore();
  });

  it('logs one line per request with its id and status, and never an API key or the admin token', async () => {
    const run = `log-${Date.now()}`;
    const wrongKey = `sk_${'Z'.repeat(43)}`;
    const sent: [string, number][] = [];
    const send = async (name: string, request: PromiseLike<{ status: number }>) => {
      const response = await request;
      sent.push([`${run}-${name}`, response.status]);
    };
    const id = (name: string) => ({ 'X-Request-Id': `${run}-${name}` });
    await send('ok', t.http.get('/v1/auth/validate').set(v1Headers(ws.key)).set(id('ok')));
    await send('query', t.http.get(`/v1/members?limit=abc`).set(v1Headers(ws.key)).set(id('query')));
    await send('version', t.http.get('/v1/auth/validate').set({ Authorization: `Bearer ${ws.key}`, ...id('version') }));
    await send('unknown-key', t.http.get('/v1/auth/validate').set(v1Headers(wrongKey)).set(id('unknown-key')));
    await send(
      'bad-json',
      t.http
        .post('/v1/members')
        .set(v1Headers(ws.key))
        .set({ 'Content-Type': 'application/json', ...id('bad-json') })
        .send('{"oops"'),
    );
    await send('crash', t.http.get('/v1/test-probe/crash').set(v1Headers(ws.key)).set(id('crash')));
    await send(
      'admin',
      t.http.post('/admin/v1/workspaces').set(adminHeaders()).set(id('admin')).send({ name: 'Logged' }),
    );
    expect(sent.map(([, status]) => status)).toEqual([200, 400, 400, 401, 400, 500, 200]);

    const records = capture.records;
    for (const [requestId, status] of sent) {
      const lines = records.filter(
        (record) => (record.req as { id?: string } | undefined)?.id === requestId && record.res !== undefined,
      );
      expect({ requestId, lines: lines.length }).toEqual({ requestId, lines: 1 });
      expect((lines[0].res as { statusCode: number }).statusCode).toBe(status);
      expect((lines[0].req as { headers: Record<string, string> }).headers.authorization).toBe('[redacted]');
    }
    // The crash is logged, with its cause, for the operator.
    expect(capture.text).toContain(CRASH_MESSAGE);

    for (const secret of [ws.key, ws.key.slice(3), wrongKey.slice(3), TEST_ADMIN_TOKEN]) {
      expect(capture.text).not.toContain(secret);
    }
  });
});

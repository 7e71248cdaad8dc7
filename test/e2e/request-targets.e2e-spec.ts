import { gzipSync } from 'node:zlib';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { rawExchange } from '../support/raw-http';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Request targets and headers as clients really send them, byte for byte: the absolute form,
 * fragments, percent-encoded paths, Content-Type and Content-Encoding values that a strict parser
 * would refuse, methods no route has. Each answer is the one the service documents (docs/api.md §1).
 */
describe('request targets and headers as sent', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let url: string;
  let host: string;

  beforeAll(async () => {
    t = await createTestApp();
    ws = await createWorkspace(t.http);
    await t.app.listen(0, '127.0.0.1');
    url = await t.app.getUrl();
    host = new URL(url).host;
  });
  afterAll(() => t.close());

  const auth = () => `Authorization: Bearer ${ws.key}\r\nService-Version: ${SERVICE_VERSION}\r\n`;

  /** One request on its own connection; `head` is the request line and any headers. */
  async function send(
    head: string,
    body = '',
    headers = '',
  ): Promise<{ status: number; headers: Record<string, string>; json: any }> {
    const length = body === '' ? '' : `Content-Length: ${Buffer.byteLength(body)}\r\n`;
    const answer = await rawExchange(
      url,
      `${head}\r\nHost: ${host}\r\n${headers}${length}Connection: close\r\n\r\n${body}`,
    );
    return { status: answer.status, headers: answer.headers, json: answer.body ? JSON.parse(answer.body) : undefined };
  }

  const note = (title: string) => JSON.stringify({ fields: { $title: title } });

  it('routes an absolute-form target by its path, scheme in any case, and reads its body', async () => {
    const created = await send(
      `POST http://${host}/v1/notes HTTP/1.1`,
      note('absolute'),
      `${auth()}Content-Type: application/json\r\n`,
    );
    expect([created.status, created.json.fields.$title.value]).toEqual([200, 'absolute']);
    const refused = await send(
      `POST HTTP://${host}/v1/notes HTTP/1.1`,
      '{"fields":',
      `${auth()}Content-Type: application/json\r\n`,
    );
    expect([refused.status, refused.json.error.code]).toEqual([400, 'invalid_json']);
    const listed = await send(`GET HTTP://${host}/V1/NOTES HTTP/1.1`, '', auth());
    expect([listed.status, listed.json.object]).toEqual([200, 'list']);
    const wrongMethod = await send(`PUT http://${host}/v1/notes HTTP/1.1`);
    expect([wrongMethod.status, wrongMethod.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    expect(wrongMethod.json.error.message).toBe('PUT is not allowed on /v1/notes; allowed: GET, HEAD, POST');
  });

  it('reads the body of a route reached through a percent-encoded path', async () => {
    const refused = await send('POST /%76%31/notes HTTP/1.1', 'nope', `${auth()}Content-Type: text/plain\r\n`);
    expect([refused.status, refused.json.error.code]).toEqual([415, 'unsupported_media_type']);
  });

  it('ignores a fragment: it is not part of the path or the query', async () => {
    const validated = await send('GET /v1/auth/validate#x HTTP/1.1', '', auth());
    expect(validated.status).toBe(200);
    const filtered = await send('GET /v1/notes?limit=1#x=1 HTTP/1.1', '', auth());
    expect([filtered.status, filtered.json.data.length]).toEqual([200, 1]);
  });

  /** The workspace's notes, counted: a refused body must not have written one. */
  async function noteCount(): Promise<number> {
    return (await send('GET /v1/notes?limit=1 HTTP/1.1', '', auth())).json.totalCount;
  }

  /** One request on its own connection with a body of raw bytes. */
  async function sendBytes(contentType: string, body: Buffer): Promise<{ status: number; json: any }> {
    const head = `POST /v1/notes HTTP/1.1\r\nHost: ${host}\r\n${auth()}Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const answer = await rawExchange(url, Buffer.concat([Buffer.from(head), body]));
    // The raw answer is read as latin1, byte for byte; the JSON body is UTF-8.
    return { status: answer.status, json: JSON.parse(Buffer.from(answer.body, 'latin1').toString('utf8')) };
  }

  const latin1Note = Buffer.from('{"fields":{"$title":"t","$content":"caf\xe9"}}', 'latin1');

  it.each([
    'application/json;;',
    'application/json; charset=',
    'application/json;charset=utf-8;',
    'application/json; charset=latin1;',
    'application/json; charset=iso-8859-1; format',
    'application/json; charset',
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf-16',
    'application/json; charset=utf-7',
    'application/json; charset=utf_8',
    'application/json; charset=unicode-1-1-utf-7',
    'application/json; charset=unicode',
    'application/json; charset="utf-8 "',
    'application/json; charset=utf-8 x',
  ])(
    'refuses Content-Type %s (parameters that do not parse, or a charset but UTF-8) with 415, writing nothing',
    async (contentType) => {
      const before = await noteCount();
      const refused = await sendBytes(contentType, latin1Note);
      expect([refused.status, refused.json.error.code]).toEqual([415, 'unsupported_media_type']);
      expect(await noteCount()).toBe(before);
    },
  );

  it('refuses bytes that are not UTF-8 with 400 invalid_json rather than store replacement characters', async () => {
    const before = await noteCount();
    const refused = await sendBytes('application/json', latin1Note);
    expect([refused.status, refused.json.error.code, refused.json.error.message]).toEqual([
      400,
      'invalid_json',
      'The body is not valid UTF-8',
    ]);
    expect(await noteCount()).toBe(before);
  });

  it('takes UTF-8 named by any of its WHATWG labels in any letter case, or no charset, and an empty Content-Encoding for none', async () => {
    const utf8Note = Buffer.from('{"fields":{"$title":"t","$content":"café"}}', 'utf8');
    const labelled = [
      'unicode-1-1-utf-8',
      'unicode11utf8',
      'unicode20utf8',
      'utf-8',
      'utf8',
      'x-unicode20utf8',
    ].flatMap((label) => [
      `application/json; charset=${label}`,
      `application/json;charset=${label.toUpperCase()}`,
      `application/json; charset="${label.replace(/^./, (first) => first.toUpperCase())}"`,
    ]);
    for (const contentType of [
      'application/json',
      ...labelled,
      'application/json; charset=Utf8; x=1',
      'application/merge-patch+json; charset=utf8',
    ]) {
      const created = await sendBytes(contentType, utf8Note);
      expect([contentType, created.status, created.json.fields?.$content?.value]).toEqual([contentType, 200, 'café']);
    }
    const identity = await send(
      'POST /v1/notes HTTP/1.1',
      note('identity'),
      `${auth()}Content-Type: application/json\r\nContent-Encoding: \r\n`,
    );
    expect(identity.status).toBe(200);
  });

  it('judges a Content-Type only when there is a body, after authentication', async () => {
    const withoutBody = await send('POST /v1/notes HTTP/1.1', '', 'Content-Type: garbage;;\r\nContent-Length: 0\r\n');
    expect([withoutBody.status, withoutBody.json.error.code]).toEqual([401, 'invalid_api_key']);
    const withBody = await send('POST /v1/notes HTTP/1.1', note('x'), `${auth()}Content-Type: garbage;;\r\n`);
    expect([withBody.status, withBody.json.error.code]).toEqual([415, 'unsupported_media_type']);
    // The body comes first on every API path, as for any other media type.
    const unknownRoute = await send('POST /v1/nope HTTP/1.1', '{}', 'Content-Type: garbage;;\r\n');
    expect([unknownRoute.status, unknownRoute.json.error.code]).toEqual([415, 'unsupported_media_type']);
    const outsideApi = await send('POST /nope HTTP/1.1', '{}', 'Content-Type: garbage;;\r\n');
    expect([outsideApi.status, outsideApi.json.error.code]).toEqual([404, 'not_found']);
  });

  it.each(['DELETE', 'OPTIONS', 'PATCH', 'PROPFIND'])(
    'answers %s on a path that does not decode with 404, a request id and an access-log entry',
    async (method) => {
      const answer = await send(`${method} /v1/notes/%ZZ HTTP/1.1`, '', 'X-Request-Id: undecodable-2\r\n');
      expect([answer.status, answer.json.error.code, answer.headers['x-request-id']]).toEqual([
        404,
        'not_found',
        'undecodable-2',
      ]);
      expect(answer.json.error.message).toBe('Resource not found');
    },
  );

  it('answers a QUERY request, a method no route has, with its 404 or 405', async () => {
    const known = await send('QUERY /v1/notes HTTP/1.1');
    expect([known.status, known.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    const unknown = await send('QUERY /nope HTTP/1.1');
    expect([unknown.status, unknown.json.error.code]).toEqual([404, 'not_found']);
  });

  it('answers an empty id segment with 404, not a 405 that names the method asked', async () => {
    const answer = await send('GET /v1/notes// HTTP/1.1', '', auth());
    expect([answer.status, answer.json.error.code, answer.headers.allow]).toEqual([404, 'not_found', undefined]);
  });

  it.each(['/docs/../health', '/docs/%2e%2e/health', '/docs/./swagger-ui.css', '/docs/%00', '/docs/nothing.css'])(
    'answers %s, a path Swagger UI’s files do not serve, with 404',
    async (path) => {
      const answer = await send(`GET ${path} HTTP/1.1`);
      expect([answer.status, answer.json.error.code]).toEqual([404, 'not_found']);
    },
  );

  it.each([
    ['plain', ''],
    ['gzip', 'Content-Encoding: gzip\r\n'],
  ])(
    'refuses a %s chunked body over 1 MiB with 413 and still serves the next request on the connection',
    async (_case, encoding) => {
      const size = 1024 * 1024 + 512 * 1024;
      const payload = encoding ? gzipSync(Buffer.alloc(size, 0x20)) : Buffer.alloc(size, 0x20);
      const request = Buffer.concat([
        Buffer.from(
          `POST /v1/notes HTTP/1.1\r\nHost: ${host}\r\n${auth()}Content-Type: application/json\r\n${encoding}Transfer-Encoding: chunked\r\n\r\n`,
        ),
        Buffer.from(`${payload.length.toString(16)}\r\n`),
        payload,
        Buffer.from(`\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
      ]);
      const answer = await rawExchange(url, request);
      expect(answer.error).toBeUndefined();
      expect([...answer.raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]))).toEqual([413, 200]);
    },
  );

  it('answers a request that asked to close, and ignores bytes sent after it', async () => {
    const answer = await send('GET /nope HTTP/1.1', 'xx');
    expect([answer.status, answer.json.error.code]).toEqual([404, 'not_found']);
  });
});

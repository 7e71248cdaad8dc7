import type { Server } from 'node:http';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { scrapeMetrics } from '../support/metrics';
import { rawExchange } from '../support/raw-http';
import { createTestApp, TestApp } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('requests the HTTP parser refuses get the JSON error body', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_PORT: '0' } });
    ws = await createWorkspace(t.http);
    await t.app.listen(0, '127.0.0.1');
    url = await t.app.getUrl();
  });
  afterAll(() => t.close());

  const auth = () => `Authorization: Bearer ${ws.key}\r\nService-Version: ${SERVICE_VERSION}\r\n`;

  async function refusals(status: number): Promise<number> {
    const text = await scrapeMetrics(t);
    return Number(new RegExp(`^http_parser_refusals_total\\{status="${status}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  }

  const malformed: [string, () => string][] = [
    ['an unknown method', () => 'FETCH /v1/notes HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['bytes that are not HTTP', () => 'hello there\r\n\r\n'],
    [
      'a Content-Length that is not a number',
      () =>
        `POST /v1/notes HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 12abc\r\n\r\n{}`,
    ],
    [
      'two different Content-Lengths',
      () => `POST /v1/notes HTTP/1.1\r\nHost: x\r\n${auth()}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    ],
    [
      'Content-Length with Transfer-Encoding',
      () =>
        `POST /v1/notes HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: 7\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    ],
    [
      'a chunk size that is not hexadecimal',
      () =>
        `POST /v1/notes HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`,
    ],
    ['a header name with a space', () => 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'],
    ['a space in the request target', () => 'GET /he alth HTTP/1.1\r\nHost: x\r\n\r\n'],
  ];

  it.each(malformed)('answers %s with 400 malformed_request, JSON, Connection: close', async (_case, bytes) => {
    const before = await refusals(400);
    const answer = await rawExchange(url, bytes());
    expect({ status: answer.status, error: answer.error }).toEqual({ status: 400, error: undefined });
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['x-request-id']).toMatch(UUID);
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
    expect(JSON.parse(answer.body)).toEqual({
      error: {
        type: 'bad_request',
        code: 'malformed_request',
        message: expect.stringMatching(/^The request is not valid HTTP\/1\.1: \S/),
      },
    });
    expect(await refusals(400)).toBe(before + 1);
  });

  it.each([
    ['a URL over 16 KiB', () => `GET /v1/notes?filter=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n${auth()}\r\n`],
    [
      'one header over 16 KiB',
      () => `GET /v1/notes HTTP/1.1\r\nHost: x\r\n${auth()}X-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`,
    ],
    [
      'headers over 16 KiB in all',
      () =>
        `GET /health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 400 }, (_u, i) => `X-H${i}: ${'c'.repeat(40)}\r\n`).join('')}\r\n`,
    ],
  ])('answers %s with 431 header_too_large, JSON', async (_case, bytes) => {
    const before = await refusals(431);
    const answer = await rawExchange(url, bytes());
    expect({ status: answer.status, error: answer.error }).toEqual({ status: 431, error: undefined });
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.body)).toEqual({
      error: {
        type: 'request_header_fields_too_large',
        code: 'header_too_large',
        message: 'The request line and headers are larger than 16 KiB',
      },
    });
    expect(await refusals(431)).toBe(before + 1);
  });

  it("answers chunk extensions over Node's limit with 413 payload_too_large, JSON", async () => {
    const before = await refusals(413);
    const chunk = `2;ext=${'e'.repeat(20 * 1024)}\r\n{}\r\n0\r\n\r\n`;
    const answer = await rawExchange(
      url,
      `POST /v1/notes HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk}`,
    );
    expect({ status: answer.status, error: answer.error }).toEqual({ status: 413, error: undefined });
    expect(JSON.parse(answer.body)).toEqual({
      error: { type: 'payload_too_large', code: 'payload_too_large', message: 'Chunk extensions are too large' },
    });
    expect(await refusals(413)).toBe(before + 1);
  });

  it('answers CONNECT, which Node would close without a word, with 405 method_not_allowed, JSON', async () => {
    const before = await refusals(405);
    const answer = await rawExchange(url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect({ status: answer.status, error: answer.error }).toEqual({ status: 405, error: undefined });
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({
      error: { type: 'method_not_allowed', code: 'method_not_allowed', message: 'CONNECT is not supported' },
    });
    expect(await refusals(405)).toBe(before + 1);
  });

  it('answers an Expect other than 100-continue with 417 expectation_failed, JSON', async () => {
    const before = await refusals(417);
    const answer = await rawExchange(
      url,
      `POST /v1/notes HTTP/1.1\r\nHost: x\r\n${auth()}Expect: 200-ok\r\nContent-Length: 2\r\n\r\n`,
    );
    expect({ status: answer.status, error: answer.error }).toEqual({ status: 417, error: undefined });
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.body)).toEqual({
      error: {
        type: 'expectation_failed',
        code: 'expectation_failed',
        message: 'Only "Expect: 100-continue" is supported',
      },
    });
    expect(await refusals(417)).toBe(before + 1);
  });

  it('still honours Expect: 100-continue', async () => {
    const body = JSON.stringify({ fields: { $title: 'continued' } });
    const answer = await rawExchange(
      url,
      `POST /v1/notes HTTP/1.1\r\nHost: x\r\n${auth()}Expect: 100-continue\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(answer.status).toBe(100);
    expect(answer.raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  });

  it('still serves well-formed requests, also on the raw connection', async () => {
    const answer = await rawExchange(url, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok' });
  });
});

describe('a request whose headers do not arrive in time', () => {
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp();
    // Node checks its timeouts on this interval (30 s by default), read when the server starts listening.
    // (a server option @types/node 20 does not declare as a property)
    const server = t.app.getHttpServer() as Server & { connectionsCheckingInterval: number };
    server.connectionsCheckingInterval = 50;
    server.headersTimeout = 300;
    server.requestTimeout = 300;
    await t.app.listen(0, '127.0.0.1');
    url = await t.app.getUrl();
  });
  afterAll(() => t.close());

  it('gets 408 request_timeout, JSON', async () => {
    const answer = await rawExchange(url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect({ status: answer.status, error: answer.error }).toEqual({ status: 408, error: undefined });
    expect(JSON.parse(answer.body)).toEqual({
      error: { type: 'request_timeout', code: 'request_timeout', message: 'The request did not arrive in time' },
    });
  });
});

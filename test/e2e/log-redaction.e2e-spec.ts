import { Controller, Get, Headers } from '@nestjs/common';
import type { Response } from 'supertest';
import { Endpoint } from '../../src/common/auth/auth.decorators';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { StdoutCapture } from '../support/log-capture';
import { adminHeaders, createTestApp, TEST_ADMIN_TOKEN, TestApp, v1Headers } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A handler that fails with the value of a header in its message, as a careless error would. */
@Controller('v1/test-log-probe')
class EchoingFailureController {
  @Get()
  @Endpoint({ summary: 'Test only: fail with a header value in the error message', category: 'read' })
  fail(@Headers('x-probe') probe: string): never {
    throw new Error(`could not handle ${probe}`);
  }
}

describe('logs never contain an API key or the admin token, wherever a client puts them', () => {
  let capture: StdoutCapture;
  let t: TestApp;
  let ws: TestWorkspace;
  const unknownKey = `sk_${'Q7'.repeat(21)}x`;

  beforeAll(async () => {
    capture = new StdoutCapture();
    t = await createTestApp({ env: { LOG_LEVEL: 'info' }, controllers: [EchoingFailureController] });
    ws = await createWorkspace(t.http);
  });
  afterAll(async () => {
    await t.close();
    capture.restore();
  });

  /** The secrets that must not appear: the keys, their bodies without `sk_`, the admin token. */
  const secrets = () => [ws.key, ws.key.slice(3), unknownKey.slice(3), TEST_ADMIN_TOKEN];

  /** The access-log line of a response, found by the request id it echoed. */
  function logLineOf(response: Response): string {
    const id = response.headers['x-request-id'];
    const lines = capture.text.split('\n').filter((line) => line.includes(`"id":"${id}"`) && line.includes('"res"'));
    expect({ id, lines: lines.length }).toEqual({ id, lines: 1 });
    return lines[0];
  }

  const placements: [string, () => Promise<Response>][] = [
    ['Authorization', () => t.http.get('/v1/auth/validate').set(v1Headers(ws.key))],
    ['Authorization, unknown key', () => t.http.get('/v1/auth/validate').set(v1Headers(unknownKey))],
    [
      'Authorization, admin token',
      () => t.http.post('/admin/v1/workspaces').set(adminHeaders()).send({ name: 'logged' }),
    ],
    [
      'Proxy-Authorization',
      () => t.http.get('/v1/auth/validate').set(v1Headers(ws.key)).set('Proxy-Authorization', `Bearer ${ws.key}`),
    ],
    ['X-Api-Key', () => t.http.get('/v1/auth/validate').set('Service-Version', '2026-03-01').set('X-Api-Key', ws.key)],
    [
      'X-Admin-Token',
      () => t.http.post('/admin/v1/workspaces').set('X-Admin-Token', TEST_ADMIN_TOKEN).send({ name: 'x' }),
    ],
    [
      'Cookie',
      () =>
        t.http
          .get('/v1/auth/validate')
          .set(v1Headers(ws.key))
          .set('Cookie', `session=${ws.key}; admin=${TEST_ADMIN_TOKEN}`),
    ],
    [
      'another header',
      () => t.http.get('/v1/auth/validate').set(v1Headers(ws.key)).set('X-Custom', `k=${ws.key},t=${TEST_ADMIN_TOKEN}`),
    ],
    ['the path', () => t.http.get(`/v1/notes/${ws.key}`).set(v1Headers(ws.key))],
    ['the path, admin token', () => t.http.get(`/admin/v1/${TEST_ADMIN_TOKEN}`).set(adminHeaders())],
    [
      'the query string',
      () => t.http.get(`/v1/notes?api_key=${ws.key}&token=${TEST_ADMIN_TOKEN}`).set(v1Headers(ws.key)),
    ],
    ['the query string, unknown route', () => t.http.get(`/nowhere?key=${unknownKey}`)],
    [
      'Idempotency-Key',
      () =>
        t.http
          .post('/v1/notes')
          .set(v1Headers(ws.key))
          .set('Idempotency-Key', ws.key)
          .send({ fields: { $title: 'logged' } }),
    ],
    [
      'a body the parser refuses',
      () =>
        t.http
          .post('/v1/notes')
          .set(v1Headers(ws.key))
          .set('Idempotency-Key', unknownKey)
          .set('Content-Type', 'application/json')
          .send('{'),
    ],
    [
      'an error message, logged with its cause',
      () => t.http.get('/v1/test-log-probe').set(v1Headers(ws.key)).set('X-Probe', ws.key),
    ],
  ];

  /** What the service logged while `send` ran, and its response. */
  async function loggedDuring(send: () => Promise<Response>): Promise<{ response: Response; logged: string }> {
    const before = capture.text.length;
    const response = await send();
    return { response, logged: capture.text.slice(before) };
  }

  it.each(placements)('redacts a key or token sent in %s', async (_placement, send) => {
    const { response, logged } = await loggedDuring(send);
    expect(logLineOf(response)).toContain('[redacted]');
    for (const secret of secrets()) expect(logged).not.toContain(secret);
  });

  it.each([
    ['an API key', () => ws.key],
    ['an unknown key-shaped value', () => unknownKey],
    ['a value containing a key', () => `trace-${ws.key}`],
    ['the admin token', () => TEST_ADMIN_TOKEN],
  ])('neither echoes nor logs %s sent as X-Request-Id: a new id replaces it', async (_case, value) => {
    const { response, logged } = await loggedDuring(() =>
      t.http.get('/v1/auth/validate').set(v1Headers(ws.key)).set('X-Request-Id', value()),
    );
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toMatch(UUID);
    logLineOf(response);
    for (const secret of secrets()) expect(logged).not.toContain(secret);
  });

  it('keeps a safe X-Request-Id', async () => {
    const response = await t.http.get('/v1/auth/validate').set(v1Headers(ws.key)).set('X-Request-Id', 'trace-42.a:b');
    expect(response.headers['x-request-id']).toBe('trace-42.a:b');
    expect(logLineOf(response)).toContain('"id":"trace-42.a:b"');
  });
});

import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { IncomingMessage, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { concurrently } from '../support/concurrency';
import { expectError } from '../support/errors';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { scrapeMetrics } from '../support/metrics';
import { expectNoRateLimitHeaders, expectRateLimitHeaders } from '../support/rate-limit';
import { OwnRedis } from '../support/redis';
import { createTestApp, TestApp, v1Headers } from '../support/test-app';

const READ_LIMIT = 3;

describe('rate limits when their Redis fails: served uncounted (fail open), never 500', () => {
  let redis: OwnRedis;
  let t: TestApp;
  let ws: TestWorkspace;

  beforeAll(async () => {
    redis = await OwnRedis.start();
    t = await createTestApp({ env: { REDIS_URL: redis.url, RATE_LIMIT_READ: String(READ_LIMIT), METRICS_PORT: '0' } });
    ws = await createWorkspace(t.http);
  });
  afterAll(async () => {
    try {
      await t?.close();
    } finally {
      if (t) rmSync(t.config.dataDir, { recursive: true, force: true });
      await redis?.stop();
    }
  });

  const read = () => t.http.get('/v1/auth/validate').set(v1Headers(ws.key));

  async function storeErrors(): Promise<number> {
    const text = await scrapeMetrics(t);
    return Number(/^rate_limit_store_errors_total (\d+)$/m.exec(text)?.[1]);
  }

  /** In a new workspace (a fresh bucket), limit+1 reads in a row: the last is 429. */
  async function expectLimitApplies(): Promise<void> {
    const fresh = await createWorkspace(t.http);
    const responses: Response[] = [];
    for (let i = 0; i <= READ_LIMIT; i += 1)
      responses.push(await t.http.get('/v1/auth/validate').set(v1Headers(fresh.key)));
    for (const response of responses.slice(0, READ_LIMIT)) {
      expect(response.status).toBe(200);
      expectRateLimitHeaders(response, 'read', READ_LIMIT);
    }
    expectError(responses[READ_LIMIT], 429, 'rate_limited');
  }

  /** Sends many more reads than the limit, a wrong key and a write: all answered, none counted. */
  async function expectServedUncounted(): Promise<void> {
    const before = await storeErrors();
    const started = Date.now();
    const reads = await concurrently(READ_LIMIT * 5, () => read());
    for (const response of reads) {
      expect(response.status).toBe(200);
      expectNoRateLimitHeaders(response);
    }
    // Failed authentications are counted in the same store: still a 401, not a 500.
    expectError(await t.http.get('/v1/auth/validate').set(v1Headers(`sk_${'4'.repeat(43)}`)), 401, 'invalid_api_key');
    const write = await t.http
      .post('/v1/notes')
      .set(v1Headers(ws.key))
      .send({ fields: { $title: 'during the outage' } });
    expect(write.status).toBe(200);
    // No request waits for the missing store: each answers well within a second.
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await storeErrors()) - before).toBeGreaterThanOrEqual(reads.length + 1);
  }

  it('applies the limit while Redis answers', async () => {
    await expectLimitApplies();
    expect(await storeErrors()).toBe(0);
  });

  it('serves every request uncounted while Redis is down, counts them in the metrics, and limits again once it is back', async () => {
    await redis.stop();
    await expectServedUncounted();
    await redis.restart();
    // The client reconnects on its own (retrying at most every two seconds).
    const deadline = Date.now() + 10_000;
    while (!(await read()).headers['x-ratelimit-limit']) {
      if (Date.now() > deadline) throw new Error('rate limits did not come back with Redis');
      await sleep(100);
    }
    await expectLimitApplies();
  });

  it('serves every request uncounted while Redis hangs (accepts, never answers), then limits again', async () => {
    redis.freeze();
    try {
      await expectServedUncounted();
    } finally {
      redis.thaw();
    }
    await sleep(1100); // the cool-down after a failure
    await expectLimitApplies();
  });
});

describe('rate limits through Redis while the application closes', () => {
  it('keeps counting requests in flight when close() begins: Redis is disconnected only after the HTTP server stops', async () => {
    const redis = await OwnRedis.start();
    const t = await createTestApp({ env: { REDIS_URL: redis.url } });
    try {
      const ws = await createWorkspace(t.http);
      await t.app.listen(0, '127.0.0.1');
      const server = t.app.getHttpServer();
      const arrived = once(server, 'request');
      // A write whose body is still arriving when the application starts closing: it has not yet
      // reached the rate-limit guard, which runs after the body parser.
      const body = JSON.stringify({ fields: { $title: 'sent across close()' } });
      const req = request(`${await t.app.getUrl()}/v1/notes`, {
        method: 'POST',
        agent: false,
        headers: {
          ...v1Headers(ws.key),
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(body)),
        },
      });
      const answer = new Promise<IncomingMessage>((resolve, reject) => {
        req.on('response', (res: IncomingMessage) => res.resume().on('end', () => resolve(res)));
        req.on('error', reject);
      });
      req.write(body.slice(0, 10));
      // Waited for as events, not guessed with sleeps: the request is in the server, then the
      // server has stopped accepting. Nest runs the module-destroy hooks before that, so a Redis
      // client closed too early (there) would be gone by now and the write served uncounted.
      await arrived;
      const closing = t.close();
      while (server.listening) await new Promise((resolve) => setImmediate(resolve));
      req.end(body.slice(10));
      const response = await answer;
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('10000');
      await closing;
    } finally {
      await t.close().catch(() => undefined);
      rmSync(t.config.dataDir, { recursive: true, force: true });
      await redis.stop();
    }
  });
});

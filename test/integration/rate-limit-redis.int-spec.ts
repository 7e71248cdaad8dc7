import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { Response } from 'supertest';
import { concurrently } from '../support/concurrency';
import { expectError } from '../support/errors';
import { createWorkspace } from '../support/factories';
import { expectRateLimitHeaders, expectRetryAfter } from '../support/rate-limit';
import { connectRedis, TEST_REDIS_URL } from '../support/redis';
import { createTestApp, TestApp, v1Headers } from '../support/test-app';

const READ_LIMIT = 4;
const SEARCH_LIMIT = 5;
const AUTH_FAILURE_LIMIT = 3;
const BATCH_ITEMS_LIMIT = 150;

/** An address of the IPv6 documentation prefix, new for each run (Redis keeps counters a minute). */
function clientAddress(): string {
  return `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
}

describe('rate limits shared by two instances through Redis', () => {
  let redis: Redis;
  let instances: [TestApp, TestApp];

  beforeAll(async () => {
    redis = await connectRedis();
    const env = {
      REDIS_URL: TEST_REDIS_URL,
      RATE_LIMIT_READ: String(READ_LIMIT),
      RATE_LIMIT_SEARCH: String(SEARCH_LIMIT),
      AUTH_FAILURE_LIMIT_PER_MINUTE: String(AUTH_FAILURE_LIMIT),
      RATE_LIMIT_BATCH_ITEMS: String(BATCH_ITEMS_LIMIT),
      TRUST_PROXY: 'true',
    };
    instances = [await createTestApp({ env }), await createTestApp({ env })];
  });
  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance?.close()));
    redis?.disconnect();
  });

  it('counts requests alternating between the instances in one bucket: the limit+1-th is 429 wherever it lands', async () => {
    const ws = await createWorkspace(instances[0].http);
    const responses: Response[] = [];
    for (let i = 0; i <= READ_LIMIT + 1; i += 1) {
      responses.push(await instances[i % 2].http.get('/v1/auth/validate').set(v1Headers(ws.key)));
    }
    const ok = responses.slice(0, READ_LIMIT);
    for (const response of ok) expect(response.status).toBe(200);
    expect(ok.map((response) => expectRateLimitHeaders(response, 'read', READ_LIMIT).remaining)).toEqual(
      Array.from({ length: READ_LIMIT }, (_unused, i) => READ_LIMIT - 1 - i),
    );
    for (const refused of responses.slice(READ_LIMIT)) {
      expectError(refused, 429, 'rate_limited');
      expectRetryAfter(refused, 1);
      expect(expectRateLimitHeaders(refused, 'read', READ_LIMIT).remaining).toBe(0);
    }
    // The counter is in Redis, under the workspace.
    expect((await redis.keys(`records:*${ws.workspaceId}*`)).length).toBeGreaterThan(0);
  });

  it('answers exactly one 429 for a concurrent burst of limit+1 spread over both instances', async () => {
    const ws = await createWorkspace(instances[1].http);
    const responses = await concurrently(SEARCH_LIMIT + 1, (i) =>
      instances[i % 2].http
        .get('/v1/members')
        .set(v1Headers(ws.key))
        .then((response: Response) => response),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(SEARCH_LIMIT);
    const refused = responses.filter((response) => response.status !== 200);
    expect(refused).toHaveLength(1);
    expectError(refused[0], 429, 'rate_limited');
    const remaining = responses
      .filter((response) => response.status === 200)
      .map((response) => expectRateLimitHeaders(response, 'search', SEARCH_LIMIT).remaining);
    expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: SEARCH_LIMIT }, (_unused, i) => i));
  });

  it('counts every input of a batch in the batch-items counter the instances share', async () => {
    const ws = await createWorkspace(instances[0].http);
    const inputs = Array.from({ length: 100 }, (_unused, index) => ({ fields: { $title: `Shared ${index}` } }));
    // Both calls in one window of a second.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
    const first = await instances[0].http.post('/v1/notes/batch/create').set(v1Headers(ws.key)).send({ inputs });
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-batch-items-remaining']).toBe(String(BATCH_ITEMS_LIMIT - 100));
    expectError(
      await instances[1].http.post('/v1/notes/batch/create').set(v1Headers(ws.key)).send({ inputs }),
      429,
      'rate_limited',
    );
  });

  it('keeps workspaces apart in Redis', async () => {
    const [first, second] = [await createWorkspace(instances[0].http), await createWorkspace(instances[0].http)];
    await concurrently(READ_LIMIT + 1, (i) =>
      instances[i % 2].http
        .get('/v1/auth/validate')
        .set(v1Headers(first.key))
        .then((r: Response) => r),
    );
    expectError(await instances[0].http.get('/v1/auth/validate').set(v1Headers(first.key)), 429, 'rate_limited');
    const other = await instances[1].http.get('/v1/auth/validate').set(v1Headers(second.key));
    expect(other.status).toBe(200);
    expect(expectRateLimitHeaders(other, 'read', READ_LIMIT).remaining).toBe(READ_LIMIT - 1);
  });

  it('shares the failed-authentication counter of a client address between the instances', async () => {
    const ws = await createWorkspace(instances[0].http);
    const address = { 'X-Forwarded-For': clientAddress() };
    const fail = (i: number) =>
      instances[i % 2].http.get('/v1/auth/validate').set({ ...v1Headers(`sk_${'1'.repeat(43)}`), ...address });
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i += 1) expectError(await fail(i), 401, 'invalid_api_key');
    for (let i = AUTH_FAILURE_LIMIT; i < AUTH_FAILURE_LIMIT + 2; i += 1) {
      const blocked = await fail(i);
      expectError(blocked, 429, 'rate_limited');
      expectRetryAfter(blocked, 60);
    }
    // Another address is not blocked; a valid key from the blocked one still works on both.
    const elsewhere = await instances[1].http
      .get('/v1/auth/validate')
      .set({ ...v1Headers(`sk_${'1'.repeat(43)}`), 'X-Forwarded-For': clientAddress() });
    expectError(elsewhere, 401, 'invalid_api_key');
    for (const instance of instances) {
      expect((await instance.http.get('/v1/auth/validate').set({ ...v1Headers(ws.key), ...address })).status).toBe(200);
    }
  });
});

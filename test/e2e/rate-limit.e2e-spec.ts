import { APP_GUARD, ModulesContainer } from '@nestjs/core';
import { getOptionsToken, ThrottlerGuard, ThrottlerModuleOptions, ThrottlerStorage } from '@nestjs/throttler';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { InProcessRateLimitStorage } from '../../src/common/throttling/in-process-rate-limit-storage';
import type { RateCategory } from '../../src/common/throttling/rate-category';
import { concurrently } from '../support/concurrency';
import { expectError } from '../support/errors';
import { createKey, createWorkspace, TestWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { ensureProbeTable, probeRows, WriteProbeController } from '../support/probe-controllers';
import { expectNoRateLimitHeaders, expectRateLimitHeaders, expectRetryAfter } from '../support/rate-limit';
import { adminHeaders, createTestApp, TestApp, v1Headers } from '../support/test-app';

const LIMITS: Record<RateCategory, number> = { read: 5, write: 4, search: 3 };

/** A client address of the documentation ranges, new for each call. */
let addressesGiven = 0;

/** A client address no other test of the run has used: a random one met an earlier test's block (1 in 254). */
function clientAddress(): string {
  addressesGiven += 1;
  return `198.51.${100 + Math.floor(addressesGiven / 250)}.${addressesGiven % 250}`;
}

describe('rate limits per workspace and category', () => {
  let t: TestApp;
  let openapi: OpenApiValidator;
  let ws: TestWorkspace;
  /**
   * The clock the counters read (Date.now; the application runs in this process), stopped: a
   * one-second window or block ends only when a test moves the clock, so a burst is counted in one
   * window however long a busy machine takes to serve it, and "after Retry-After" is exact.
   */
  let now = Date.now();
  let clock: jest.SpyInstance | undefined;

  /** One request of `category`, with `key`; `label` marks the row a write leaves. */
  const send: Record<RateCategory, (key: string, label?: string) => Promise<Response>> = {
    read: async (key) => t.http.get('/v1/auth/validate').set(v1Headers(key)),
    search: async (key) => t.http.get('/v1/members').set(v1Headers(key)),
    write: async (key, label = 'rate-limit') => t.http.post('/v1/test-probe/items').set(v1Headers(key)).send({ label }),
  };

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        RATE_LIMIT_READ: String(LIMITS.read),
        RATE_LIMIT_WRITE: String(LIMITS.write),
        RATE_LIMIT_SEARCH: String(LIMITS.search),
      },
      controllers: [WriteProbeController],
    });
    await ensureProbeTable(t.app.get(DataSource));
    openapi = new OpenApiValidator(t.document);
    ws = await createWorkspace(t.http);
    now = Date.now();
    clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterAll(async () => {
    clock?.mockRestore();
    await t?.close();
  });

  it('counts through @nestjs/throttler: a global ThrottlerGuard, the throttlers read, write, search and batch-items of RATE_LIMIT_*', () => {
    const globalGuards = [...t.app.get(ModulesContainer).values()].flatMap((module) =>
      [...module.providers]
        .filter(([token]) => typeof token === 'string' && token.startsWith(APP_GUARD))
        .map(([, wrapper]) => wrapper.instance),
    );
    expect(globalGuards.filter((guard) => guard instanceof ThrottlerGuard)).toHaveLength(1);
    const options = t.app.get<ThrottlerModuleOptions>(getOptionsToken());
    expect(Array.isArray(options) ? options : options.throttlers).toEqual([
      ...(['read', 'write', 'search'] as const).map((name) => ({
        name,
        limit: LIMITS[name],
        ttl: 1000,
        blockDuration: 1000,
      })),
      { name: 'batch-items', limit: 1_000_000, ttl: 1000, blockDuration: 1000 },
    ]);
    // Without REDIS_URL, the counters are this process's.
    expect(t.app.get(ThrottlerStorage)).toBeInstanceOf(InProcessRateLimitStorage);
  });

  it('puts the headers of the route’s bucket on every authenticated /v1 response, errors included', async () => {
    const cases: [RateCategory, number, Promise<Response>][] = [
      ['read', 200, send.read(ws.key)],
      ['read', 200, t.http.get(`/v1/members/${ws.memberId}`).set(v1Headers(ws.key))],
      ['read', 404, t.http.get('/v1/members/mem_nope').set(v1Headers(ws.key))],
      ['search', 200, send.search(ws.key)],
      ['search', 400, t.http.get('/v1/members?limit=0').set(v1Headers(ws.key))],
      ['write', 200, send.write(ws.key)],
      ['write', 422, t.http.post('/v1/test-probe/items').set(v1Headers(ws.key)).send({})],
    ];
    for (const [category, status, request] of cases) {
      const response = await request;
      expect(response.status).toBe(status);
      expectRateLimitHeaders(response, category, LIMITS[category]);
    }
  });

  it('puts none on responses refused before the rate limit, nor outside /v1', async () => {
    const narrow = await createKey(t.http, ws.workspaceId, ws.memberId, ['notes:read']);
    const refused = [
      await t.http.get('/v1/auth/validate'),
      await t.http.get('/v1/auth/validate').set({ Authorization: `Bearer ${ws.key}` }),
      await t.http.get('/v1/members').set(v1Headers(narrow.key)),
      await t.http.get('/health'),
      await t.http.post('/admin/v1/workspaces').set(adminHeaders()).send({ name: 'No limit' }),
    ];
    expect(refused.map((response) => response.status)).toEqual([401, 400, 403, 200, 200]);
    for (const response of refused) expectNoRateLimitHeaders(response);
  });

  it.each(['read', 'search', 'write'] as RateCategory[])(
    'answers 429 rate_limited past the %s limit, with Retry-After, and serves again after it',
    async (category) => {
      const fresh = await createWorkspace(t.http);
      const limit = LIMITS[category];
      const label = `burst-${category}-${fresh.workspaceId}`;
      // The bucket is new: its one-second window starts with this burst, and the clock stands still.
      const responses = await concurrently(limit + 1, () => send[category](fresh.key, label));

      const ok = responses.filter((response) => response.status === 200);
      const limited = responses.filter((response) => response.status !== 200);
      expect(ok).toHaveLength(limit);
      expect(limited).toHaveLength(1);
      const remaining = ok.map((response) => expectRateLimitHeaders(response, category, limit).remaining);
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: limit }, (_unused, i) => i));

      const [refused] = limited;
      expectError(refused, 429, 'rate_limited');
      openapi.assert(refused);
      expect(refused.body.error.message).toContain(`${limit} ${category} requests`);
      expect(expectRateLimitHeaders(refused, category, limit).remaining).toBe(0);
      const retryAfter = expectRetryAfter(refused, 1);
      if (category === 'write') expect(await probeRows(t.app.get(DataSource), label)).toHaveLength(limit);

      expectError(await send[category](fresh.key, label), 429, 'rate_limited');
      // Refused until the Retry-After has passed, to the millisecond, and served from then on.
      now += retryAfter * 1000 - 1;
      expectError(await send[category](fresh.key, label), 429, 'rate_limited');
      now += 1;
      const again = await send[category](fresh.key, label);
      expect(again.status).toBe(200);
      expectRateLimitHeaders(again, category, limit);
    },
  );

  it('keeps one bucket per category: an exhausted read bucket leaves search and write untouched', async () => {
    const fresh = await createWorkspace(t.http);
    const burst = await concurrently(LIMITS.read + 1, () => send.read(fresh.key));
    expect(burst.filter((response) => response.status === 429)).toHaveLength(1);

    const search = await send.search(fresh.key);
    expect(search.status).toBe(200);
    expect(expectRateLimitHeaders(search, 'search', LIMITS.search).remaining).toBe(LIMITS.search - 1);
    const write = await send.write(fresh.key);
    expect(write.status).toBe(200);
    expect(expectRateLimitHeaders(write, 'write', LIMITS.write).remaining).toBe(LIMITS.write - 1);
    expectError(await send.read(fresh.key), 429, 'rate_limited');
  });

  it('keeps one bucket per category, shared by all of its routes', async () => {
    const fresh = await createWorkspace(t.http);
    const member = () => t.http.get(`/v1/members/${fresh.memberId}`).set(v1Headers(fresh.key));
    expect(expectRateLimitHeaders(await send.read(fresh.key), 'read', LIMITS.read).remaining).toBe(LIMITS.read - 1);
    expect(expectRateLimitHeaders(await member(), 'read', LIMITS.read).remaining).toBe(LIMITS.read - 2);
    const rest = await concurrently(LIMITS.read - 2, () => send.read(fresh.key));
    expect(rest.map((response) => response.status)).toEqual(rest.map(() => 200));
    expectError(await member(), 429, 'rate_limited');
  });

  it('keeps one bucket per workspace, shared by all of its keys', async () => {
    const first = await createWorkspace(t.http);
    const second = await createWorkspace(t.http);
    const sameWorkspaceKey = await createKey(t.http, first.workspaceId, first.memberId, ['*']);

    const burst = await concurrently(LIMITS.search + 1, () => send.search(first.key));
    expect(burst.filter((response) => response.status === 429)).toHaveLength(1);

    expectError(await send.search(sameWorkspaceKey.key), 429, 'rate_limited');
    const other = await send.search(second.key);
    expect(other.status).toBe(200);
    expect(expectRateLimitHeaders(other, 'search', LIMITS.search).remaining).toBe(LIMITS.search - 1);
  });

  it('does not count requests refused for their scope', async () => {
    const fresh = await createWorkspace(t.http);
    const narrow = await createKey(t.http, fresh.workspaceId, fresh.memberId, ['notes:read']);
    const refused = await concurrently(LIMITS.search * 2, () => send.search(narrow.key));
    for (const response of refused) expectError(response, 403, 'insufficient_scope');
    const allowed = await send.search(fresh.key);
    expect(allowed.status).toBe(200);
    expect(expectRateLimitHeaders(allowed, 'search', LIMITS.search).remaining).toBe(LIMITS.search - 1);
  });
});

describe('failed authentication limited per client address', () => {
  const LIMIT = 3;
  const unknownKey = `sk_${'0'.repeat(43)}`;

  /** The failures a client can cause: no key, an unknown key, a malformed one, a wrong admin token. */
  const failures = (http: TestApp['http'], headers: Record<string, string>) => [
    () => http.get('/v1/auth/validate').set(headers),
    () => http.get('/v1/auth/validate').set({ ...v1Headers(unknownKey), ...headers }),
    () => http.get('/v1/members').set({ Authorization: 'Bearer nope', ...headers }),
    () =>
      http
        .post('/admin/v1/workspaces')
        .set({ Authorization: 'Bearer wrong-admin-token-123456', ...headers })
        .send({ name: 'x' }),
  ];

  describe('behind a trusted proxy (TRUST_PROXY=true: the address is X-Forwarded-For)', () => {
    let t: TestApp;
    let ws: TestWorkspace;

    beforeAll(async () => {
      t = await createTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'true' } });
      ws = await createWorkspace(t.http);
    });
    afterAll(() => t.close());

    it(`answers 401 for ${LIMIT} failures, then 429 with Retry-After; a valid key still works`, async () => {
      const address = { 'X-Forwarded-For': clientAddress() };
      const attempts = failures(t.http, address);
      for (const attempt of attempts.slice(0, LIMIT)) expectError(await attempt(), 401, 'invalid_api_key');

      const blocked = await attempts[LIMIT]();
      expectError(blocked, 429, 'rate_limited');
      expectRetryAfter(blocked, 60);
      expectNoRateLimitHeaders(blocked);
      for (const attempt of attempts) expectError(await attempt(), 429, 'rate_limited');

      const valid = await t.http.get('/v1/auth/validate').set({ ...v1Headers(ws.key), ...address });
      expect(valid.status).toBe(200);
      const admin = await t.http
        .post('/admin/v1/workspaces')
        .set({ ...adminHeaders(), ...address })
        .send({ name: 'ok' });
      expect(admin.status).toBe(200);
    });

    it('counts each address on its own', async () => {
      const blockedAddress = { 'X-Forwarded-For': clientAddress() };
      for (const attempt of failures(t.http, blockedAddress)) await attempt();
      expectError(await failures(t.http, blockedAddress)[0](), 429, 'rate_limited');

      expectError(await failures(t.http, { 'X-Forwarded-For': clientAddress() })[0](), 401, 'invalid_api_key');
    });
  });

  describe('without a trusted proxy (default)', () => {
    let t: TestApp;
    let ws: TestWorkspace;

    beforeAll(async () => {
      t = await createTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: String(LIMIT) } });
      ws = await createWorkspace(t.http);
    });
    afterAll(() => t.close());

    it('ignores X-Forwarded-For, so a client cannot escape the limit by forging it', async () => {
      for (let i = 0; i < LIMIT; i += 1) {
        expectError(await failures(t.http, { 'X-Forwarded-For': clientAddress() })[1](), 401, 'invalid_api_key');
      }
      const blocked = await failures(t.http, { 'X-Forwarded-For': clientAddress() })[1]();
      expectError(blocked, 429, 'rate_limited');
      expectRetryAfter(blocked, 60);
      expect((await t.http.get('/v1/auth/validate').set(v1Headers(ws.key))).status).toBe(200);
    });
  });
});

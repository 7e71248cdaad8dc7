import { DataSource } from 'typeorm';
import { hashSecret } from '../../src/common/auth/api-key-secret';
import { SCOPES } from '../../src/common/auth/scopes';
import { expectError } from '../support/errors';
import { createKey, createWorkspace, TestWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { watchWire } from '../support/query-counter';
import { adminHeaders, createTestApp, TestApp, v1Headers } from '../support/test-app';

describe('authentication, versioning and scopes', () => {
  let t: TestApp;
  let openapi: OpenApiValidator;
  let ws: TestWorkspace;

  beforeAll(async () => {
    t = await createTestApp();
    openapi = new OpenApiValidator(t.document);
    ws = await createWorkspace(t.http);
  });
  afterAll(() => t.close());

  it('validates an active key and lists every granted scope', async () => {
    const response = await t.http.get('/v1/auth/validate').set(v1Headers(ws.key));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ active: true, scopes: [...SCOPES], subjectType: 'user', tokenType: 'api_key' });
    openapi.assert(response);
  });

  it('lists only the scopes a narrower key holds', async () => {
    const key = await createKey(t.http, ws.workspaceId, ws.memberId, ['notes:read', 'files:create']);
    const response = await t.http.get('/v1/auth/validate').set(v1Headers(key.key));
    expect(response.body.scopes).toEqual(['notes:read', 'files:create']);
  });

  it.each([
    ['no Authorization header', {}],
    ['an unknown key', { Authorization: 'Bearer sk_0000000000000000000000000000000000000000000' }],
    ['a malformed key', { Authorization: 'Bearer not-a-key' }],
    ['another scheme', { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
  ])('answers 401 invalid_api_key for %s', async (_case, headers) => {
    const response = await t.http.get('/v1/auth/validate').set({ 'Service-Version': '2026-03-01', ...headers });
    expectError(response, 401, 'invalid_api_key');
    openapi.assert(response);
  });

  it('refuses a revoked key at once, and revoking twice keeps the first time', async () => {
    const key = await createKey(t.http, ws.workspaceId, ws.memberId, ['*']);
    expect((await t.http.get('/v1/auth/validate').set(v1Headers(key.key))).status).toBe(200);
    const revoked = await t.http.post(`/admin/v1/api-keys/${key.id}/revoke`).set(adminHeaders());
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: key.id, revokedAt: expect.any(String) });
    expectError(await t.http.get('/v1/auth/validate').set(v1Headers(key.key)), 401, 'invalid_api_key');
    const again = await t.http.post(`/admin/v1/api-keys/${key.id}/revoke`).set(adminHeaders());
    expect(again.body.revokedAt).toBe(revoked.body.revokedAt);
  });

  it('looks a key up in one prepared statement: one round trip per request, parsed once per connection', async () => {
    // Prepares the lookup on the pooled connection that the next requests, one at a time, reuse.
    expect((await t.http.get('/v1/auth/validate').set(v1Headers(ws.key))).status).toBe(200);
    const { result, statements, roundTrips, parses } = await watchWire(async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1)
        statuses.push((await t.http.get('/v1/auth/validate').set(v1Headers(ws.key))).status);
      return statuses;
    });
    expect(result).toEqual([200, 200, 200]);
    expect(roundTrips).toBe(3);
    if (process.env.TEST_DATABASE_POOL_MODE === 'transaction') {
      // Behind a transaction-mode pooler the next request may reach a server session that never saw a name.
      expect(statements).toEqual([1, 2, 3].map(() => expect.stringMatching(/FROM api_keys/)));
      expect(parses).toBe(3);
    } else {
      expect(statements).toEqual([1, 2, 3].map(() => expect.stringMatching(/^auth-key-lookup:/)));
      expect(parses).toBe(0);
    }
  });

  it('stores only the SHA-256 of a key, never the key', async () => {
    const key = await createKey(t.http, ws.workspaceId, ws.memberId, ['notes:read']);
    const rows = await t.app.get(DataSource).query(`SELECT * FROM api_keys WHERE id = $1`, [key.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toBe(hashSecret(key.key));
    expect(JSON.stringify(rows)).not.toContain(key.key);
    const everywhere = await t.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM api_keys k WHERE k::text LIKE '%' || $1 || '%'`, [key.key.slice(3)]);
    expect(everywhere[0].n).toBe(0);
  });

  it.each([
    ['missing', undefined],
    ['another date', '2025-01-01'],
    ['garbage', 'latest'],
  ])('answers 400 version_header when Service-Version is %s', async (_case, version) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${ws.key}` };
    if (version) headers['Service-Version'] = version;
    const response = await t.http.get('/v1/auth/validate').set(headers);
    expectError(response, 400, 'version_header', 'Service-Version');
  });

  it('checks the key before the version: a bad key without version is 401', async () => {
    expectError(await t.http.get('/v1/auth/validate'), 401, 'invalid_api_key');
  });

  it('answers 403 insufficient_scope naming the scope, before counting the request', async () => {
    const key = await createKey(t.http, ws.workspaceId, ws.memberId, ['notes:read']);
    const response = await t.http.get('/v1/members').set(v1Headers(key.key));
    expectError(response, 403, 'insufficient_scope');
    expect(response.body.error.message).toBe('This operation requires the scope members:read; missing: members:read');
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    openapi.assert(response);
  });

  it('accepts a key with exactly the required scope', async () => {
    const key = await createKey(t.http, ws.workspaceId, ws.memberId, ['members:read']);
    const response = await t.http.get('/v1/members').set(v1Headers(key.key));
    expect(response.status).toBe(200);
    openapi.assert(response);
  });
});

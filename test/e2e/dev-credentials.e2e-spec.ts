import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureDevCredentials } from '../../src/bootstrap/dev-credentials';
import { ApiKeysService } from '../../src/common/auth/api-keys.service';
import { SCOPES } from '../../src/common/auth/scopes';
import { AdminService } from '../../src/modules/admin/admin.service';
import { expectError } from '../support/errors';
import { adminHeaders, createTestApp, TestApp, v1Headers } from '../support/test-app';

/** The demo workspace and key a development start prints. */
describe('development credentials', () => {
  let t: TestApp;
  let dataDir: string;
  const ensure = () => ensureDevCredentials(dataDir, t.app.get(AdminService), t.app.get(ApiKeysService));

  beforeAll(async () => {
    t = await createTestApp();
    dataDir = mkdtempSync(path.join(tmpdir(), 'records-test-dev-'));
  });
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await t.close();
  });

  it('creates a workspace, an admin member and a key with every scope, kept in the data directory', async () => {
    const credentials = await ensure();
    const validated = await t.http.get('/v1/auth/validate').set(v1Headers(credentials.apiKey));
    expect(validated.status).toBe(200);
    expect(validated.body.scopes).toEqual([...SCOPES]);
    const member = await t.http.get(`/v1/members/${credentials.memberId}`).set(v1Headers(credentials.apiKey));
    expect(member.body.fields).toMatchObject({
      $email: { value: 'admin@example.com' },
      $role: { value: 'admin' },
    });
    const file = path.join(dataDir, 'dev-credentials.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(credentials);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('prints the same key on the next start while it is active', async () => {
    const first = await ensure();
    expect(await ensure()).toEqual(first);
  });

  it('makes new credentials when the saved key was revoked', async () => {
    const revoked = await ensure();
    expect((await t.http.post(`/admin/v1/api-keys/${revoked.apiKeyId}/revoke`).set(adminHeaders())).status).toBe(200);
    const renewed = await ensure();
    expect(renewed.apiKeyId).not.toBe(revoked.apiKeyId);
    expect(renewed.workspaceId).not.toBe(revoked.workspaceId);
    expect((await t.http.get('/v1/auth/validate').set(v1Headers(renewed.apiKey))).status).toBe(200);
    expectError(await t.http.get('/v1/auth/validate').set(v1Headers(revoked.apiKey)), 401, 'invalid_api_key');
  });
});

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ApiKeysService } from '../common/auth/api-keys.service';
import { AdminService } from '../modules/admin/admin.service';

export interface DevCredentials {
  workspaceId: string;
  memberId: string;
  apiKeyId: string;
  apiKey: string;
}

const DEMO_SCOPES = ['*'];

/**
 * Development only: a demo workspace, an admin member and an API key with every scope, kept in
 * `DATA_DIR` so that the next start prints the same key. Recreated when the database lost them.
 */
export async function ensureDevCredentials(
  dataDir: string,
  admin: AdminService,
  apiKeys: ApiKeysService,
): Promise<DevCredentials> {
  const file = path.join(dataDir, 'dev-credentials.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DevCredentials;
    if (await apiKeys.isActive(saved.apiKeyId, saved.apiKey)) return saved;
  }
  const workspace = await admin.createWorkspace('Demo workspace');
  const member = await admin.createMember(workspace.id, {
    email: 'admin@example.com',
    firstName: 'Demo',
    lastName: 'Admin',
    role: 'admin',
  });
  const key = await admin.createApiKey(workspace.id, { memberId: member.id, scopes: DEMO_SCOPES, name: 'demo' });
  const credentials = { workspaceId: workspace.id, memberId: member.id, apiKeyId: key.id, apiKey: key.key };
  writeFileSync(file, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return credentials;
}

/** The operator token and where it came from: the banner prints it only when the service made it. */
export type AdminToken =
  | { source: 'environment'; value: string }
  | { source: 'generated'; value: string }
  | { source: 'none'; value: undefined };

/** ADMIN_TOKEN when set; in development a token generated once and kept in `DATA_DIR`. */
export function resolveAdminToken(
  configured: string | undefined,
  isProduction: boolean,
  dataDir: string,
  generate: () => string,
): AdminToken {
  if (configured) return { source: 'environment', value: configured };
  if (isProduction) return { source: 'none', value: undefined };
  const file = path.join(dataDir, 'admin-token');
  if (existsSync(file)) return { source: 'generated', value: readFileSync(file, 'utf8').trim() };
  const token = generate();
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { source: 'generated', value: token };
}

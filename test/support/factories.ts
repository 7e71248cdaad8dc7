import type TestAgent from 'supertest/lib/agent';
import { adminHeaders } from './test-app';

export interface TestWorkspace {
  workspaceId: string;
  memberId: string;
  memberEmail: string;
  apiKeyId: string;
  key: string;
}

let counter = 0;

function unique(): string {
  counter += 1;
  return `${process.pid}-${Date.now()}-${counter}`;
}

async function expectOk<T>(response: { status: number; body: unknown }, what: string): Promise<T> {
  if (response.status !== 200) throw new Error(`${what} failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as T;
}

/** A fresh workspace with one admin member and a key with `scopes` (default: every scope). */
export async function createWorkspace(http: TestAgent, scopes: string[] = ['*']): Promise<TestWorkspace> {
  const workspace = await expectOk<{ id: string }>(
    await http
      .post('/admin/v1/workspaces')
      .set(adminHeaders())
      .send({ name: `Test ${unique()}` }),
    'create workspace',
  );
  const memberEmail = `admin-${unique()}@example.com`;
  const member = await expectOk<{ id: string }>(
    await http
      .post(`/admin/v1/workspaces/${workspace.id}/members`)
      .set(adminHeaders())
      .send({ email: memberEmail, firstName: 'Ada', lastName: 'Admin', role: 'admin' }),
    'create member',
  );
  const key = await createKey(http, workspace.id, member.id, scopes);
  return { workspaceId: workspace.id, memberId: member.id, memberEmail, apiKeyId: key.id, key: key.key };
}

export async function createMember(
  http: TestAgent,
  workspaceId: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; email: string }> {
  const email = `member-${unique()}@example.com`;
  const member = await expectOk<{ id: string }>(
    await http
      .post(`/admin/v1/workspaces/${workspaceId}/members`)
      .set(adminHeaders())
      .send({ email, ...body }),
    'create member',
  );
  return { id: member.id, email: (body.email as string | undefined) ?? email };
}

export async function createKey(
  http: TestAgent,
  workspaceId: string,
  memberId: string,
  scopes: string[],
): Promise<{ id: string; key: string }> {
  return expectOk(
    await http.post(`/admin/v1/workspaces/${workspaceId}/api-keys`).set(adminHeaders()).send({ memberId, scopes }),
    'create key',
  );
}

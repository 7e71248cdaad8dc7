import { SCOPES } from '../../src/common/auth/scopes';
import { concurrently } from '../support/concurrency';
import { expectError } from '../support/errors';
import { createKey, createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { createTestApp, TestApp, v1Headers } from '../support/test-app';

/** The member resource of docs/api.md §6: the entity envelope with three fields and no relationships. */
function memberEnvelope(member: {
  id: string;
  email: string;
  name: { firstName?: string; lastName?: string } | null;
  role: 'admin' | 'member';
  httpLink: string | null;
}) {
  return {
    id: member.id,
    createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    updatedAt: null,
    httpLink: member.httpLink,
    fields: {
      $email: { value: member.email, valueType: 'EMAIL' },
      $name: { value: member.name, valueType: 'FULL_NAME' },
      $role: { value: member.role, valueType: 'TEXT' },
    },
    relationships: {},
    externalId: null,
  };
}

describe('members (GET /v1/members, GET /v1/members/{id})', () => {
  let t: TestApp;
  let openapi: OpenApiValidator;
  let ws: TestWorkspace;
  let other: TestWorkspace;

  const get = (path: string, key = ws.key) => t.http.get(path).set(v1Headers(key));

  beforeAll(async () => {
    t = await createTestApp();
    openapi = new OpenApiValidator(t.document);
    ws = await createWorkspace(t.http);
    other = await createWorkspace(t.http);
  });
  afterAll(() => t.close());

  it('retrieves a member as an entity envelope', async () => {
    const response = await get(`/v1/members/${ws.memberId}`);
    expect(response.status).toBe(200);
    openapi.assert(response);
    expect(response.body).toEqual(
      memberEnvelope({
        id: ws.memberId,
        email: ws.memberEmail,
        name: { firstName: 'Ada', lastName: 'Admin' },
        role: 'admin',
        httpLink: null,
      }),
    );
  });

  it('reads a partial name with only the members given, and no name as null', async () => {
    const first = await createMember(t.http, ws.workspaceId, { firstName: 'Linus' });
    const none = await createMember(t.http, ws.workspaceId);
    const firstRead = await get(`/v1/members/${first.id}`);
    expect(firstRead.body).toEqual(
      memberEnvelope({
        id: first.id,
        email: first.email,
        name: { firstName: 'Linus' },
        role: 'member',
        httpLink: null,
      }),
    );
    const noneRead = await get(`/v1/members/${none.id}`);
    expect(noneRead.body).toEqual(
      memberEnvelope({ id: none.id, email: none.email, name: null, role: 'member', httpLink: null }),
    );
  });

  it('lists the members of the workspace in the same envelope', async () => {
    const response = await get('/v1/members');
    expect(response.status).toBe(200);
    openapi.assert(response);
    const admin = response.body.data.find((member: { id: string }) => member.id === ws.memberId);
    const single = await get(`/v1/members/${ws.memberId}`);
    expect(admin).toEqual(single.body);
    for (const member of response.body.data) {
      expect(Object.keys(member.fields).sort()).toEqual(['$email', '$name', '$role']);
      expect(member.relationships).toEqual({});
    }
  });

  it.each([
    ['a malformed id', 'not-an-id'],
    ['an id of another kind', 'wks_01JD6Y3Z8Q0N5V4W7X2C9B1A3E'],
    ['a lower-case ULID', 'mem_01jd6y3z8q0n5v4w7x2c9b1a3e'],
    ['an unknown id', 'mem_01JD6Y3Z8Q0N5V4W7X2C9B1A3E'],
    ['an id with SQL', "mem_' OR '1'='1"],
  ])('answers 404 not_found for %s', async (_case, id) => {
    const response = await get(`/v1/members/${encodeURIComponent(id)}`);
    expectError(response, 404, 'not_found');
    openapi.assert(response);
  });

  it('answers 404 for a member of another workspace, never its data', async () => {
    const response = await get(`/v1/members/${other.memberId}`);
    expectError(response, 404, 'not_found');
    expect(response.text).not.toContain(other.memberEmail);
    const list = await get('/v1/members');
    expect(list.body.data.map((member: { id: string }) => member.id)).not.toContain(other.memberId);
    // The other workspace reads its own member.
    expect((await get(`/v1/members/${other.memberId}`, other.key)).status).toBe(200);
  });

  it('requires the members:read scope on both routes', async () => {
    const withoutScope = await createKey(
      t.http,
      ws.workspaceId,
      ws.memberId,
      SCOPES.filter((scope) => scope !== 'members:read'),
    );
    for (const path of ['/v1/members', `/v1/members/${ws.memberId}`]) {
      const response = await get(path, withoutScope.key);
      expectError(response, 403, 'insufficient_scope');
      expect(response.body.error.message).toContain('members:read');
      openapi.assert(response);
    }
    const withScope = await createKey(t.http, ws.workspaceId, ws.memberId, ['members:read']);
    for (const path of ['/v1/members', `/v1/members/${ws.memberId}`]) {
      expect((await get(path, withScope.key)).status).toBe(200);
    }
  });

  it('filters members like records (docs/api.md §8)', async () => {
    const fresh = await createWorkspace(t.http);
    const grace = await createMember(t.http, fresh.workspaceId, {
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@navy.example',
    });
    const ids = async (query: string) => {
      const response = await get(`/v1/members?${query}`, fresh.key);
      expect(response.status).toBe(200);
      openapi.assert(response);
      return { ids: response.body.data.map((member: { id: string }) => member.id), total: response.body.totalCount };
    };
    expect(await ids('$role=member')).toEqual({ ids: [grace.id], total: 1 });
    expect(await ids('$role=admin')).toEqual({ ids: [fresh.memberId], total: 1 });
    expect(await ids(`${encodeURIComponent('$email[contains]')}=NAVY`)).toEqual({ ids: [grace.id], total: 1 });
    expect(await ids(`${encodeURIComponent('$name[startsWith]')}=Hop`)).toEqual({ ids: [grace.id], total: 1 });
    expect(await ids(`${encodeURIComponent('$role[-equal]')}=member`)).toEqual({ ids: [fresh.memberId], total: 1 });
    // A member without a name: negations match it, the filters themselves never do.
    const unnamed = await createMember(t.http, fresh.workspaceId);
    expect(await ids(`${encodeURIComponent('$name[-startsWith]')}=Hop`)).toEqual({
      ids: [unnamed.id, fresh.memberId],
      total: 2,
    });
    expect(await ids(`${encodeURIComponent('$name[-equal]')}=Grace`)).toEqual({
      ids: [unnamed.id, fresh.memberId],
      total: 2,
    });
    expect(await ids(`${encodeURIComponent('$name[startsWith]')}=`)).toEqual({
      ids: [grace.id, fresh.memberId],
      total: 2,
    });
    expectError(await get('/v1/members?$email[startsWith]=g', fresh.key), 400, 'invalid_filter');
    expectError(await get('/v1/members?$phone=1', fresh.key), 400, 'unknown_field');
  });

  it('counts and pages from one snapshot: no page is larger than totalCount − offset while members are added', async () => {
    const fresh = await createWorkspace(t.http);
    let writing = true;
    const writers = concurrently(3, async () => {
      for (let i = 0; i < 12; i += 1) await createMember(t.http, fresh.workspaceId);
    }).finally(() => (writing = false));
    const pages: { offset: number; length: number; totalCount: number }[] = [];
    await concurrently(3, async (reader) => {
      for (let round = 0; writing || round < 2; round += 1) {
        const offset = (round + reader) % 4;
        const response = await get(`/v1/members?limit=25&offset=${offset}`, fresh.key);
        expect(response.status).toBe(200);
        pages.push({ offset, length: response.body.data.length, totalCount: response.body.totalCount });
      }
    });
    await writers;
    expect(pages.filter((page) => page.length !== Math.min(25, Math.max(0, page.totalCount - page.offset)))).toEqual(
      [],
    );
    expect(pages.length).toBeGreaterThan(6);
  });

  it('checks the scope before it looks the member up: no 404 without the scope', async () => {
    const noScope = await createKey(t.http, ws.workspaceId, ws.memberId, ['notes:read']);
    expectError(await get('/v1/members/not-an-id', noScope.key), 403, 'insufficient_scope');
  });
});

describe('members with PUBLIC_APP_URL', () => {
  const PUBLIC_APP_URL = 'https://app.example.com/records';
  let t: TestApp;
  let ws: TestWorkspace;

  beforeAll(async () => {
    // A trailing slash in the setting must not double the slash in links.
    t = await createTestApp({ env: { PUBLIC_APP_URL: `${PUBLIC_APP_URL}/` } });
    ws = await createWorkspace(t.http);
  });
  afterAll(() => t.close());

  it('links every member to the web app', async () => {
    const expected = `${PUBLIC_APP_URL}/member/${ws.memberId}`;
    const one = await t.http.get(`/v1/members/${ws.memberId}`).set(v1Headers(ws.key));
    expect(one.body.httpLink).toBe(expected);
    const list = await t.http.get('/v1/members').set(v1Headers(ws.key));
    expect(list.body.data.map((member: { httpLink: string }) => member.httpLink)).toEqual([expected]);
  });
});

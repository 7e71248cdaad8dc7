import { DataSource } from 'typeorm';
import { newId } from '../../src/common/ids';
import { expectError } from '../support/errors';
import { createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { createTestApp, TestApp, v1Headers } from '../support/test-app';

const MEMBERS = 30;

describe('pagination of GET /v1/members (limit, offset, totalCount, order)', () => {
  let t: TestApp;
  let openapi: OpenApiValidator;
  let ws: TestWorkspace;
  /** Every member id of the workspace, newest first. */
  let newestFirst: string[];

  const list = (query: string) => t.http.get(`/v1/members${query}`).set(v1Headers(ws.key));
  const ids = (body: { data: { id: string }[] }) => body.data.map((member) => member.id);

  beforeAll(async () => {
    t = await createTestApp();
    openapi = new OpenApiValidator(t.document);
    ws = await createWorkspace(t.http);
    const created = [ws.memberId];
    // One at a time: the creation order is the order to expect, newest first.
    for (let i = 1; i < MEMBERS; i += 1) created.push((await createMember(t.http, ws.workspaceId)).id);
    newestFirst = created.reverse();
  });
  afterAll(() => t.close());

  it('answers 25 members by default, newest first, with the total count', async () => {
    const response = await list('');
    expect(response.status).toBe(200);
    openapi.assert(response);
    expect(response.body.object).toBe('list');
    expect(response.body.totalCount).toBe(MEMBERS);
    expect(ids(response.body)).toEqual(newestFirst.slice(0, 25));
  });

  it('pages through everything with limit and offset, totalCount ignoring both', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < MEMBERS + 7; offset += 7) {
      const response = await list(`?limit=7&offset=${offset}`);
      expect(response.status).toBe(200);
      expect(response.body.totalCount).toBe(MEMBERS);
      expect(ids(response.body)).toEqual(newestFirst.slice(offset, offset + 7));
      seen.push(...ids(response.body));
    }
    expect(seen).toEqual(newestFirst);
  });

  it.each([
    ['?limit=1', 0, 1],
    ['?limit=25', 0, 25],
    ['?offset=29', 29, 25],
    ['?limit=5&offset=10', 10, 5],
    ['?offset=0', 0, 25],
  ])('accepts %s', async (query, offset, limit) => {
    const response = await list(query);
    expect(response.status).toBe(200);
    expect(response.body.totalCount).toBe(MEMBERS);
    expect(ids(response.body)).toEqual(newestFirst.slice(offset, offset + limit));
  });

  it('answers an empty page, with the total count, past the end', async () => {
    for (const offset of [MEMBERS, 1000, 999999999, Number.MAX_SAFE_INTEGER]) {
      const response = await list(`?offset=${offset}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ object: 'list', data: [], totalCount: MEMBERS, nextCursor: null });
    }
  });

  it.each([
    ['0', 'limit=0'],
    ['26', 'limit=26'],
    ['-1', 'limit=-1'],
    ['1.5', 'limit=1.5'],
    ['abc', 'limit=abc'],
    ['empty', 'limit='],
    ['1e1', 'limit=1e1'],
    ['huge', 'limit=99999999999999999999'],
    ['repeated', 'limit=1&limit=2'],
    ['an array', 'limit[]=1'],
  ])('answers 400 invalid_parameter for limit %s', async (_case, query) => {
    const response = await list(`?${query}`);
    const param = query.startsWith('limit[]') ? 'limit[]' : 'limit';
    expectError(response, 400, 'invalid_parameter', param);
    openapi.assert(response);
  });

  it.each([
    ['-1', 'offset=-1'],
    ['1.5', 'offset=1.5'],
    ['abc', 'offset=abc'],
    ['empty', 'offset='],
    ['repeated', 'offset=0&offset=5'],
  ])('answers 400 invalid_parameter for offset %s', async (_case, query) => {
    expectError(await list(`?${query}`), 400, 'invalid_parameter', 'offset');
  });

  it('authenticates before it checks limit and offset', async () => {
    expectError(await t.http.get('/v1/members?limit=0'), 401, 'invalid_api_key');
  });

  it.each([
    ['foo=bar', 'foo'],
    ['limit=5&sort=asc', 'sort'],
    ['page=2', 'page'],
  ])(
    'answers 400 unknown_field for the unknown filter key in ?%s (members take filters, docs/api.md §8)',
    async (query, param) => {
      const response = await list(`?${query}`);
      expectError(response, 400, 'unknown_field', param);
      expect(response.body.error.message).toContain(param);
    },
  );

  it('orders by createdAt descending, then id descending, whatever the id order says', async () => {
    const other = await createWorkspace(t.http);
    const dataSource = t.app.get(DataSource);
    // Ids are generated in the order a, b, c; createdAt says otherwise: a is the newest, b and c tie.
    const [a, b, c] = [newId('member'), newId('member'), newId('member')];
    await dataSource.query(
      `INSERT INTO members (id, workspace_id, email, role, created_at) VALUES
         ($1, $4, 'a@example.com', 'member', now() + interval '1 hour'),
         ($2, $4, 'b@example.com', 'member', '2020-01-01T00:00:00Z'),
         ($3, $4, 'c@example.com', 'member', '2020-01-01T00:00:00Z')`,
      [a, b, c, other.workspaceId],
    );
    const response = await t.http.get('/v1/members').set(v1Headers(other.key));
    expect(response.status).toBe(200);
    expect(ids(response.body)).toEqual([a, other.memberId, c, b]);
    expect(response.body.totalCount).toBe(4);
  });

  it('counts and lists only the caller’s workspace', async () => {
    const other = await createWorkspace(t.http);
    const response = await t.http.get('/v1/members').set(v1Headers(other.key));
    expect(response.body.totalCount).toBe(1);
    expect(ids(response.body)).toEqual([other.memberId]);
  });

  it('lists a member as soon as its create has returned', async () => {
    const other = await createWorkspace(t.http);
    const member = await createMember(t.http, other.workspaceId);
    const response = await t.http.get('/v1/members?limit=1').set(v1Headers(other.key));
    expect(ids(response.body)).toEqual([member.id]);
  });
});

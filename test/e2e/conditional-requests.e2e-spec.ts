import { Client } from 'pg';
import type { Response, Test } from 'supertest';
import { DataSource } from 'typeorm';
import { apiSuite, twoInstances } from '../support/api-suite';
import { until } from '../support/concurrency';
import { expectError } from '../support/errors';
import { createKey, createMember, createWorkspace, type TestWorkspace } from '../support/factories';
import { adminHeaders, testDatabaseUrl, v1Headers } from '../support/test-app';

describe('conditional requests: ETag, If-Match, If-None-Match', () => {
  const suite = apiSuite();
  const { post, get } = suite;

  function postWith(path: string, body: unknown, headers: Record<string, string>, key = suite.ws.key) {
    return suite.t.http
      .post(path)
      .set(v1Headers(key))
      .set(headers)
      .send(body as object);
  }

  function getWith(path: string, headers: Record<string, string>, key = suite.ws.key) {
    return suite.t.http.get(path).set(v1Headers(key)).set(headers);
  }

  async function note(title = 'Draft'): Promise<Response> {
    const created = await post('/v1/notes', { fields: { $title: title } });
    expect(created.status).toBe(200);
    return created;
  }

  /** The feed's events of the workspace about `entityId`, from its start. */
  async function eventsOf(
    entityId: string,
    key = suite.ws.key,
  ): Promise<{ type: string; data: { version: number } }[]> {
    const events: { entityId: string; type: string; data: { version: number } }[] = [];
    let query = '?limit=100';
    for (;;) {
      const page = await get(`/v1/events${query}`, key);
      expect(page.status).toBe(200);
      if (page.body.data.length === 0) return events.filter((event) => event.entityId === entityId);
      events.push(...page.body.data);
      query = `?cursor=${page.body.nextCursor}`;
    }
  }

  it('answers each record with its version and its strong ETag, which every change bumps and nothing else', async () => {
    const created = await note();
    expect(created.body.version).toBe(1);
    expect(created.headers.etag).toBe('"v1"');
    suite.openapi.assert(created);
    const read = await get(`/v1/notes/${created.body.id}`);
    expect(read.headers.etag).toBe('"v1"');
    expect(read.body).toEqual(created.body);
    suite.openapi.assert(read);
    const updated = await post(`/v1/notes/${created.body.id}`, { fields: { $title: 'Final' } });
    expect(updated.body.version).toBe(2);
    expect(updated.headers.etag).toBe('"v2"');
    suite.openapi.assert(updated);
    const unchanged = await post(`/v1/notes/${created.body.id}`, { fields: { $title: 'Final' } });
    expect(unchanged.headers.etag).toBe('"v2"');
    expect((await get(`/v1/notes/${created.body.id}`)).body.version).toBe(2);
    const list = await get('/v1/notes?limit=5');
    expect(list.headers.etag).toBeUndefined();
    expect(list.body.data.find((row: { id: string }) => row.id === created.body.id).version).toBe(2);
  });

  it('bumps the version of a record whose relationships change from their other end', async () => {
    const account = await post('/v1/accounts', { fields: { $name: 'Acme' } });
    expect(account.body.version).toBe(1);
    await post('/v1/notes', { fields: { $title: 'About Acme' }, relationships: { $account: account.body.id } });
    const after = await get(`/v1/accounts/${account.body.id}`);
    expect(after.body.relationships.$note.values).toHaveLength(1);
    expect(after.body.version).toBe(2);
    expect(after.headers.etag).toBe('"v2"');
  });

  it('answers 304 without a body to an If-None-Match that names the ETag (weakly, or *), and 200 otherwise', async () => {
    const { id } = (await note()).body;
    for (const sent of ['"v1"', 'W/"v1"', '"v9", "v1"', '*']) {
      const notModified = await getWith(`/v1/notes/${id}`, { 'If-None-Match': sent });
      expect({ sent, status: notModified.status }).toEqual({ sent, status: 304 });
      expect(notModified.headers.etag).toBe('"v1"');
      expect(notModified.text).toBe('');
    }
    const changed = await getWith(`/v1/notes/${id}`, { 'If-None-Match': '"v0"' });
    expect(changed.status).toBe(200);
    expect(changed.body.id).toBe(id);
    expectError(await getWith(`/v1/notes/${id}`, { 'If-None-Match': 'v1' }), 400, 'invalid_parameter', 'If-None-Match');
    expectError(await getWith(`/v1/notes/${id}`, { 'If-None-Match': '"v1"' }, suite.other.key), 404, 'not_found');
    const list = await getWith('/v1/notes?limit=1', { 'If-None-Match': '*' });
    expect(list.status).toBe(200);
    expect(list.headers.etag).toBeUndefined();
  });

  it('writes an update only at a version If-Match names: else 412 with the current ETag, nothing written, no event', async () => {
    const { id } = (await note()).body;
    await post(`/v1/notes/${id}`, { fields: { $title: 'Second' } });
    for (const sent of ['"v1"', 'W/"v2"', '"abc"', '"v2-metadata"']) {
      const refused = await postWith(`/v1/notes/${id}`, { fields: { $title: 'Lost' } }, { 'If-Match': sent });
      expectError(refused, 412, 'precondition_failed');
      expect(refused.headers.etag).toBe('"v2"');
      suite.openapi.assert(refused);
    }
    // Through the write path that locks first: a relationship given.
    const account = (await post('/v1/accounts', { fields: { $name: 'Beta' } })).body.id;
    const refused = await postWith(
      `/v1/notes/${id}`,
      { relationships: { $account: { add: [account] } } },
      { 'If-Match': '"v1"' },
    );
    expectError(refused, 412, 'precondition_failed');
    const stored = await get(`/v1/notes/${id}`);
    expect(stored.body.fields.$title.value).toBe('Second');
    expect(stored.body.relationships.$account.values).toEqual([]);
    expect(stored.body.version).toBe(2);
    expect((await eventsOf(id)).map((event) => event.type)).toEqual(['note.created', 'note.updated']);
    const written = await postWith(`/v1/notes/${id}`, { fields: { $title: 'Third' } }, { 'If-Match': '"v1", "v2"' });
    expect(written.status).toBe(200);
    expect(written.headers.etag).toBe('"v3"');
    const linked = await postWith(
      `/v1/notes/${id}`,
      { relationships: { $account: { add: [account] } } },
      { 'If-Match': '*' },
    );
    expect(linked.status).toBe(200);
    expect(linked.headers.etag).toBe('"v4"');
    const events = await eventsOf(id);
    expect(events.map((event) => event.data.version)).toEqual([1, 2, 3, 4]);
  });

  it('refuses a malformed If-Match, and answers 404 for no such record whatever it names', async () => {
    const { id } = (await note()).body;
    for (const sent of ['v1', '"v1', '"v1" "v2"', '']) {
      const refused = await postWith(`/v1/notes/${id}`, { fields: { $title: 'X' } }, { 'If-Match': sent });
      expectError(refused, 400, 'invalid_parameter', 'If-Match');
    }
    // The headers are read before the body, as the other headers are.
    const both = await postWith(`/v1/notes/${id}`, { fields: { $title: 42 } }, { 'If-Match': 'v1' });
    expectError(both, 400, 'invalid_parameter', 'If-Match');
    expect((await get(`/v1/notes/${id}`)).body.fields.$title.value).toBe('Draft');
    const missing = `note_${'0'.repeat(26)}`;
    expectError(
      await postWith(`/v1/notes/${missing}`, { fields: { $title: 'X' } }, { 'If-Match': '*' }),
      404,
      'not_found',
    );
    expectError(
      await postWith(`/v1/notes/${id}`, { fields: { $title: 'X' } }, { 'If-Match': '"v1"' }, suite.other.key),
      404,
      'not_found',
    );
  });

  it('upserts as If-Match and If-None-Match ask: * to update only or to create only', async () => {
    const body = { matchOn: 'externalId', externalId: `crm-${Date.now()}`, fields: { $name: 'Upserted' } };
    const updateOnly = await postWith('/v1/accounts/upsert', body, { 'If-Match': '*' });
    expectError(updateOnly, 412, 'precondition_failed');
    expect(updateOnly.headers.etag).toBeUndefined();
    const created = await postWith('/v1/accounts/upsert', body, { 'If-None-Match': '*' });
    expect(created.status).toBe(200);
    expect(created.body.outcome).toBe('created');
    expect(created.headers.etag).toBe('"v1"');
    suite.openapi.assert(created);
    const again = await postWith('/v1/accounts/upsert', body, { 'If-None-Match': '*' });
    expectError(again, 412, 'precondition_failed');
    expect(again.headers.etag).toBe('"v1"');
    const stale = await postWith('/v1/accounts/upsert', { ...body, fields: { $name: 'New' } }, { 'If-Match': '"v7"' });
    expectError(stale, 412, 'precondition_failed');
    const updated = await postWith(
      '/v1/accounts/upsert',
      { ...body, fields: { $name: 'New' } },
      { 'If-Match': '"v1"' },
    );
    expect(updated.body.outcome).toBe('updated');
    expect(updated.headers.etag).toBe('"v2"');
    const accounts = await get('/v1/accounts?limit=25');
    expect(accounts.body.data.filter((row: { externalId: string }) => row.externalId === body.externalId)).toHaveLength(
      1,
    );
  });

  it('takes each batch input’s ifMatch: a mismatch is that input’s 412, or the atomic batch’s answer', async () => {
    const [first, second] = [(await note('One')).body.id, (await note('Two')).body.id];
    const mixed = await post('/v1/notes/batch/update', {
      inputs: [
        { id: first, ifMatch: '"v1"', fields: { $title: 'One, edited' } },
        { id: second, ifMatch: '"v2"', fields: { $title: 'Two, lost' } },
        { id: second, ifMatch: 3, fields: { $title: 'Two, lost' } },
      ],
    });
    expect(mixed.status).toBe(207);
    suite.openapi.assert(mixed);
    expect(mixed.body.results[0]).toMatchObject({ status: 200, outcome: 'updated', data: { version: 2 } });
    expect(mixed.body.results[1]).toMatchObject({
      status: 412,
      error: { code: 'precondition_failed', param: 'inputs[1]' },
    });
    expect(mixed.body.results[2]).toMatchObject({
      status: 400,
      error: { code: 'invalid_type', param: 'inputs[2].ifMatch' },
    });
    expect((await get(`/v1/notes/${second}`)).body.fields.$title.value).toBe('Two');
    const atomic = await post('/v1/notes/batch/update', {
      atomic: true,
      inputs: [
        { id: first, ifMatch: '"v2"', fields: { $title: 'One, again' } },
        { id: second, ifMatch: '"v9"', fields: { $title: 'Two, lost' } },
      ],
    });
    expectError(atomic, 412, 'precondition_failed', 'inputs[1]');
    expect((await get(`/v1/notes/${first}`)).body.fields.$title.value).toBe('One, edited');
    const upserts = await post('/v1/accounts/batch/upsert', {
      matchOn: 'externalId',
      inputs: [
        { externalId: `batch-a-${Date.now()}`, ifMatch: '*', fields: { $name: 'A' } },
        { externalId: `batch-b-${Date.now()}`, fields: { $name: 'B' } },
      ],
    });
    expect(upserts.status).toBe(207);
    expect(upserts.body.results[0]).toMatchObject({ status: 412, error: { code: 'precondition_failed' } });
    expect(upserts.body.results[1]).toMatchObject({ status: 200, outcome: 'created', data: { version: 1 } });
  });

  it('replays an idempotent write with the ETag it answered first', async () => {
    const { id } = (await note()).body;
    const headers = { 'Idempotency-Key': `etag-${id}`, 'If-Match': '"v1"' };
    const first = await postWith(`/v1/notes/${id}`, { fields: { $title: 'Once' } }, headers);
    expect(first.headers.etag).toBe('"v2"');
    const replay = await postWith(`/v1/notes/${id}`, { fields: { $title: 'Once' } }, headers);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.etag).toBe('"v2"');
  });

  it('gives a redacted meeting another ETag than the full one, and takes If-Match on a meeting’s update after its access check', async () => {
    const meeting = await post('/v1/meetings', {
      fields: {
        $title: 'Board',
        $startDate: '2026-01-01T10:00:00Z',
        $endDate: '2026-01-01T11:00:00Z',
        $privacySetting: 'METADATA',
      },
    });
    expect(meeting.status).toBe(200);
    expect(meeting.headers.etag).toBe(`"v${meeting.body.version}"`);
    const member = await createMember(suite.t.http, suite.ws.workspaceId);
    const outsider = await createKey(suite.t.http, suite.ws.workspaceId, member.id, ['*']);
    const redacted = await get(`/v1/meetings/${meeting.body.id}`, outsider.key);
    expect(redacted.body.accessLevel).toBe('METADATA');
    expect(redacted.headers.etag).toBe(`"v${meeting.body.version}-metadata"`);
    const full = await getWith(`/v1/meetings/${meeting.body.id}`, { 'If-None-Match': redacted.headers.etag });
    expect(full.status).toBe(200);
    const stale = await postWith(
      `/v1/meetings/${meeting.body.id}`,
      { fields: { $privacySetting: 'FULL' } },
      { 'If-Match': '"v99"' },
    );
    expectError(stale, 412, 'precondition_failed');
    const forbidden = await postWith(
      `/v1/meetings/${meeting.body.id}`,
      { fields: { $privacySetting: 'FULL' } },
      { 'If-Match': '"v99"' },
      outsider.key,
    );
    expectError(forbidden, 403, 'not_permitted');
    const lifted = await postWith(
      `/v1/meetings/${meeting.body.id}`,
      { fields: { $privacySetting: 'FULL' } },
      { 'If-Match': meeting.headers.etag },
    );
    expect(lifted.status).toBe(200);
    expect(lifted.headers.etag).toBe(`"v${meeting.body.version + 1}"`);
  });
});

describe('conditional requests on lists and webhook endpoints', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  const withHeaders = (request: Test, headers: Record<string, string>) => request.set(headers);

  it('versions a list by its name and members, and takes If-Match on its update and If-None-Match on its read', async () => {
    const [a, b] = [
      (await post('/v1/accounts', { fields: { $name: 'A' } })).body.id,
      (await post('/v1/accounts', { fields: { $name: 'B' } })).body.id,
    ];
    const created = await post('/v1/lists', {
      fields: { $name: 'Targets', $objectType: 'account' },
      relationships: { $accounts: [a] },
    });
    expect(created.body.version).toBe(1);
    expect(created.headers.etag).toBe('"v1"');
    const path = `/v1/lists/${created.body.id}`;
    const notModified = await withHeaders(get(path), { 'If-None-Match': '"v1"' });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    const renamed = await withHeaders(post(path, { fields: { $name: 'Targets 2' } }), { 'If-Match': '"v1"' });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.etag).toBe('"v2"');
    suite.openapi.assert(renamed);
    const joined = await post(path, { relationships: { $accounts: { add: [b] } } });
    expect(joined.body.version).toBe(3);
    const unchanged = await post(path, { fields: { $name: 'Targets 2' }, relationships: { $accounts: { add: [b] } } });
    expect(unchanged.body.version).toBe(3);
    const both = await post(path, { fields: { $name: 'Targets 3' }, relationships: { $accounts: { remove: [a] } } });
    expect(both.body.version).toBe(4);
    const stale = await withHeaders(
      post(path, { fields: { $name: 'Lost' }, relationships: { $accounts: { remove: [b] } } }),
      {
        'If-Match': '"v3"',
      },
    );
    expectError(stale, 412, 'precondition_failed');
    expect(stale.headers.etag).toBe('"v4"');
    suite.openapi.assert(stale);
    const stored = await get(path);
    expect(stored.body).toMatchObject({ version: 4, fields: { $name: { value: 'Targets 3' } } });
    expect((await get(`${path}/accounts`)).body.data.map((member: { id: string }) => member.id)).toEqual([b]);
    const events = await get(`/v1/events?types=list.updated,list.member_added,list.member_removed&limit=25`);
    // The first member (created, v1), the rename (v2), the join (v3), the rename and the leave (v4).
    const ofList = events.body.data.filter((event: { entityId: string }) => event.entityId === created.body.id);
    expect(ofList.map((event: { data: { version: number } }) => event.data.version)).toEqual([1, 2, 3, 4, 4]);
    expectError(await withHeaders(get(path, suite.other.key), { 'If-None-Match': '*' }), 404, 'not_found');
  });

  it('versions a webhook endpoint by its changes and rotations; If-Match guards its update, rotation and delete', async () => {
    const created = await post('/v1/webhooks', { url: 'https://203.0.113.10/hooks', eventTypes: ['task.created'] });
    expect(created.status).toBe(200);
    expect(created.headers.etag).toBe('"v1"');
    const path = `/v1/webhooks/${created.body.id}`;
    expect((await withHeaders(get(path), { 'If-None-Match': '"v1"' })).status).toBe(304);
    const described = await withHeaders(post(path, { description: 'Sync' }), { 'If-Match': '"v1"' });
    expect(described.body.version).toBe(2);
    expect(described.headers.etag).toBe('"v2"');
    suite.openapi.assert(described);
    expect((await post(path, { description: 'Sync' })).body.version).toBe(2);
    const rotated = await withHeaders(post(`${path}/rotate-secret`, {}), { 'If-Match': '"v2"' });
    expect(rotated.body.version).toBe(3);
    const staleRotation = await withHeaders(post(`${path}/rotate-secret`, {}), { 'If-Match': '"v2"' });
    expectError(staleRotation, 412, 'precondition_failed');
    expect(staleRotation.headers.etag).toBe('"v3"');
    const staleDelete = await withHeaders(suite.t.http.delete(path).set(v1Headers(suite.ws.key)), {
      'If-Match': '"v2"',
    });
    expectError(staleDelete, 412, 'precondition_failed');
    suite.openapi.assert(staleDelete);
    expect((await get(path)).body).toMatchObject({ version: 3, description: 'Sync' });
    const deleted = await withHeaders(suite.t.http.delete(path).set(v1Headers(suite.ws.key)), { 'If-Match': '"v3"' });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.etag).toBeUndefined();
    expectError(await get(path), 404, 'not_found');
    expectError(
      await withHeaders(suite.t.http.delete(path).set(v1Headers(suite.ws.key)), { 'If-Match': '*' }),
      404,
      'not_found',
    );
  });
});

describe('a workspace that requires preconditions (requirePreconditions)', () => {
  const suite = apiSuite();
  let ws: TestWorkspace;
  const settings = (workspaceId: string, body: unknown) =>
    suite.t.http
      .post(`/admin/v1/workspaces/${workspaceId}/settings`)
      .set(adminHeaders())
      .send(body as object);
  const send = (method: 'post' | 'delete', path: string, body: unknown, headers: Record<string, string> = {}) =>
    suite.t.http[method](path)
      .set(v1Headers(ws.key))
      .set(headers)
      .send(body as object);

  beforeAll(async () => {
    ws = await createWorkspace(suite.t.http);
    const set = await settings(ws.workspaceId, { requirePreconditions: true });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: ws.workspaceId, requirePreconditions: true });
    suite.openapi.assert(set);
  });

  it('answers 428 to an update, an upsert and a delete without a precondition, and writes nothing', async () => {
    const created = await send('post', '/v1/notes', { fields: { $title: 'Guarded' } });
    expect(created.status).toBe(200);
    const path = `/v1/notes/${created.body.id}`;
    const refused = await send('post', path, { fields: { $title: 'Blind' } });
    expectError(refused, 428, 'precondition_required');
    suite.openapi.assert(refused);
    expect((await send('post', path, { fields: { $title: 'Seen' } }, { 'If-Match': '"v1"' })).status).toBe(200);
    const upsert = { matchOn: 'externalId', externalId: `guarded-${Date.now()}`, fields: { $name: 'G' } };
    expectError(await send('post', '/v1/accounts/upsert', upsert), 428, 'precondition_required');
    expect((await send('post', '/v1/accounts/upsert', upsert, { 'If-None-Match': '*' })).body.outcome).toBe('created');
    const list = await send('post', '/v1/lists', { fields: { $name: 'L', $objectType: 'account' } });
    expectError(
      await send('post', `/v1/lists/${list.body.id}`, { fields: { $name: 'M' } }),
      428,
      'precondition_required',
    );
    const webhook = await send('post', '/v1/webhooks', {
      url: 'https://203.0.113.10/hooks',
      eventTypes: ['task.created'],
    });
    const webhookPath = `/v1/webhooks/${webhook.body.id}`;
    expectError(await send('delete', webhookPath, undefined), 428, 'precondition_required');
    expectError(await send('post', `${webhookPath}/rotate-secret`, {}), 428, 'precondition_required');
    expect((await send('delete', webhookPath, undefined, { 'If-Match': '*' })).status).toBe(200);
    const stored = await suite.t.http.get(path).set(v1Headers(ws.key));
    expect(stored.body).toMatchObject({ version: 2, fields: { $title: { value: 'Seen' } } });
  });

  it('answers 428 for each batch input without ifMatch (an upsert’s: nor ifNoneMatch)', async () => {
    const created = await send('post', '/v1/notes', { fields: { $title: 'Batched' } });
    const updates = await send('post', '/v1/notes/batch/update', {
      inputs: [
        { id: created.body.id, fields: { $title: 'Blind' } },
        { id: created.body.id, ifMatch: '"v1"', fields: { $title: 'Seen' } },
      ],
    });
    expect(updates.status).toBe(207);
    suite.openapi.assert(updates);
    expect(updates.body.results[0]).toMatchObject({
      status: 428,
      error: { code: 'precondition_required', param: 'inputs[0].ifMatch' },
    });
    expect(updates.body.results[1]).toMatchObject({ status: 200, data: { version: 2 } });
    const stamp = Date.now();
    const upserts = await send('post', '/v1/accounts/batch/upsert', {
      matchOn: 'externalId',
      inputs: [
        { externalId: `guarded-a-${stamp}`, fields: { $name: 'A' } },
        { externalId: `guarded-b-${stamp}`, ifNoneMatch: '*', fields: { $name: 'B' } },
      ],
    });
    expect(upserts.body.results.map((result: { status: number }) => result.status)).toEqual([428, 200]);
    const again = await send('post', '/v1/accounts/batch/upsert', {
      matchOn: 'externalId',
      atomic: true,
      inputs: [{ externalId: `guarded-b-${stamp}`, ifNoneMatch: '*', fields: { $name: 'B2' } }],
    });
    expectError(again, 412, 'precondition_failed', 'inputs[0]');
  });

  it('leaves creates and reads alone, and lifts the requirement when the setting is turned off', async () => {
    const other = await createWorkspace(suite.t.http);
    const created = await suite.t.http
      .post('/v1/notes')
      .set(v1Headers(other.key))
      .send({ fields: { $title: 'Free' } });
    expect((await settings(other.workspaceId, { requirePreconditions: true })).status).toBe(200);
    const path = `/v1/notes/${created.body.id}`;
    expect((await suite.t.http.get(path).set(v1Headers(other.key))).status).toBe(200);
    const blind = () =>
      suite.t.http
        .post(path)
        .set(v1Headers(other.key))
        .send({ fields: { $title: 'Blind' } });
    expectError(await blind(), 428, 'precondition_required');
    const unchanged = await settings(other.workspaceId, {});
    expect(unchanged.body.requirePreconditions).toBe(true);
    expect((await settings(other.workspaceId, { requirePreconditions: false })).body.requirePreconditions).toBe(false);
    expect((await blind()).status).toBe(200);
  });

  it('refuses a bad setting, an unknown workspace and a request without the operator token', async () => {
    expectError(
      await settings(ws.workspaceId, { requirePreconditions: 'yes' }),
      400,
      'invalid_type',
      'requirePreconditions',
    );
    expectError(await settings(ws.workspaceId, { other: true }), 400, 'unknown_field', 'other');
    expectError(await settings(`wks_${'0'.repeat(26)}`, { requirePreconditions: true }), 404, 'not_found');
    expectError(await settings('nope', { requirePreconditions: true }), 404, 'not_found');
    const unauthorized = await suite.t.http
      .post(`/admin/v1/workspaces/${ws.workspaceId}/settings`)
      .send({ requirePreconditions: false });
    expect(unauthorized.status).toBe(401);
  });
});

describe('concurrent writes with one If-Match, from two instances', () => {
  const pair = twoInstances();

  it('let exactly one of 20 succeed; every other answers 412 with the ETag it wrote', async () => {
    const created = await pair.apps[0].http
      .post('/v1/notes')
      .set(v1Headers(pair.ws.key))
      .send({ fields: { $title: 'Race' } });
    const account = await pair.apps[0].http
      .post('/v1/accounts')
      .set(v1Headers(pair.ws.key))
      .send({ fields: { $name: 'Racing' } });
    expect(created.status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_unused, index) =>
        pair.apps[index % 2].http
          .post(`/v1/notes/${created.body.id}`)
          .set(v1Headers(pair.ws.key))
          .set('If-Match', created.headers.etag)
          // Half through the one-statement update, half through the one that locks first.
          .send(
            index % 4 < 2
              ? { fields: { $title: `Writer ${index}` } }
              : { fields: { $title: `Writer ${index}` }, relationships: { $account: { add: [account.body.id] } } },
          ),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(19);
    const winner = answers.find((answer) => answer.status === 200)!;
    for (const answer of answers.filter((candidate) => candidate.status === 412)) {
      expect(answer.headers.etag).toBe(winner.headers.etag);
    }
    const stored = await pair.apps[0].http.get(`/v1/notes/${created.body.id}`).set(v1Headers(pair.ws.key));
    expect(stored.body.fields.$title.value).toBe(winner.body.fields.$title.value);
    expect(stored.headers.etag).toBe('"v2"');
  });
});

/**
 * A write that waits for another's row lock: the other writer is a transaction of the test's own
 * connection, which changes the record and commits once the request is seen waiting for it. A
 * statement reads as of its start, so what the waiting write reads must come from after the lock.
 */
describe('a write that waited for another writer’s lock', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  let other: Client;

  beforeAll(async () => {
    other = new Client({ connectionString: testDatabaseUrl() });
    await other.connect();
  });
  afterAll(() => other.end());

  /** Sends `send` while `other` holds the record's row, changed (a new $content, its version bumped); commits once `send` waits for it. */
  async function behindAnotherWriter(id: string, send: () => Test): Promise<Response> {
    await other.query('BEGIN');
    await other.query(
      `UPDATE records SET fields = fields || '{"$content": "by the other writer"}', version = version + 1,
              updated_at = '2030-01-01T00:00:00Z' WHERE id = $1`,
      [id],
    );
    const [{ pid }] = (await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
    const answer = send().then((response) => response);
    await until('the request to wait for the row lock', async () => {
      const waiting = await suite.t.app
        .get(DataSource)
        .query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
      return waiting[0].n > 0;
    });
    await other.query('COMMIT');
    return answer;
  }

  it.each([
    ['the update that locks first (a relationship given)', true],
    ['the one-statement update (fields only)', false],
  ])('refuses, through %s, the If-Match the other writer made stale', async (_path, linked) => {
    const { id } = (await post('/v1/notes', { fields: { $title: 'Contended' } })).body;
    const account = (await post('/v1/accounts', { fields: { $name: 'Contender' } })).body.id;
    const body = linked
      ? { fields: { $title: 'Lost' }, relationships: { $account: { add: [account] } } }
      : { fields: { $title: 'Lost' } };
    const refused = await behindAnotherWriter(id, () => post(`/v1/notes/${id}`, body).set('If-Match', '"v1"'));
    expectError(refused, 412, 'precondition_failed');
    expect(refused.headers.etag).toBe('"v2"');
    expect((await get(`/v1/notes/${id}`)).body).toMatchObject({
      version: 2,
      fields: { $title: { value: 'Contended' }, $content: { value: 'by the other writer' } },
    });
  });

  it('answers an update that changes nothing with the record as the other writer left it', async () => {
    const { id } = (await post('/v1/notes', { fields: { $title: 'Same' } })).body;
    const unchanged = await behindAnotherWriter(id, () => post(`/v1/notes/${id}`, { fields: { $title: 'Same' } }));
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({
      version: 2,
      updatedAt: '2030-01-01T00:00:00.000Z',
      fields: { $content: { value: 'by the other writer' } },
    });
    expect(unchanged.headers.etag).toBe('"v2"');
  });

  it('keeps the other writer’s change and answers the record as it is after both', async () => {
    const { id } = (await post('/v1/notes', { fields: { $title: 'Shared' } })).body;
    const account = (await post('/v1/accounts', { fields: { $name: 'Linked' } })).body.id;
    const written = await behindAnotherWriter(id, () =>
      post(`/v1/notes/${id}`, { fields: { $title: 'Both' }, relationships: { $account: { add: [account] } } }),
    );
    expect(written.status).toBe(200);
    const expected = {
      version: 3,
      fields: { $title: { value: 'Both' }, $content: { value: 'by the other writer' } },
      relationships: { $account: { values: [account] } },
    };
    expect(written.body).toMatchObject(expected);
    expect(written.headers.etag).toBe('"v3"');
    expect((await get(`/v1/notes/${id}`)).body).toMatchObject(expected);
  });
});

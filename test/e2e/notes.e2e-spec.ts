import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createKey, createMember, createWorkspace } from '../support/factories';
import { adminHeaders } from '../support/test-app';

describe('notes', () => {
  const suite = apiSuite();
  const { post, get } = suite;

  async function account(name: string, key = suite.ws.key): Promise<string> {
    const response = await post('/v1/accounts', { fields: { $name: name } }, key);
    expect(response.status).toBe(200);
    return response.body.id;
  }

  async function opportunity(accountId: string): Promise<string> {
    const response = await post('/v1/opportunities', {
      fields: { $name: 'Deal', $stage: 'LEAD' },
      relationships: { $account: accountId },
    });
    expect(response.status).toBe(200);
    return response.body.id;
  }

  it('creates a note with its author and links, readable from both ends', async () => {
    const acc = await account('Acme');
    const opp = await opportunity(acc);
    const created = await post('/v1/notes', {
      fields: { $title: 'Kick-off', $content: '# Agenda' },
      relationships: { $account: acc, $opportunity: [opp] },
    });
    expect(created.status).toBe(200);
    suite.openapi.assert(created);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^note_[0-9A-Z]{26}$/),
      updatedAt: null,
      httpLink: null,
      externalId: null,
      fields: {
        $title: { value: 'Kick-off', valueType: 'TEXT' },
        $content: { value: '# Agenda', valueType: 'MARKDOWN' },
      },
      relationships: {
        $account: { cardinality: 'has_many', objectType: 'account', values: [acc] },
        $opportunity: { cardinality: 'has_many', objectType: 'opportunity', values: [opp] },
        $createdBy: { cardinality: 'has_one', objectType: 'member', values: [suite.ws.memberId] },
      },
    });
    const fromAccount = await get(`/v1/accounts/${acc}`);
    expect(fromAccount.body.relationships.$note.values).toEqual([created.body.id]);
    const read = await get(`/v1/notes/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    suite.openapi.assert(read);
  });

  it('updates only what is given, with add and remove on relationships', async () => {
    const [a1, a2] = [await account('One'), await account('Two')];
    const note = (await post('/v1/notes', { fields: { $title: 'T', $content: 'C' }, relationships: { $account: a1 } }))
      .body;
    const updated = await post(`/v1/notes/${note.id}`, {
      fields: { $title: 'T2' },
      relationships: { $account: { add: a2, remove: [a1] } },
    });
    expect(updated.status).toBe(200);
    suite.openapi.assert(updated);
    expect(updated.body.fields.$title.value).toBe('T2');
    expect(updated.body.fields.$content.value).toBe('C');
    expect(updated.body.relationships.$account.values).toEqual([a2]);
    expect(updated.body.updatedAt).not.toBeNull();
    const cleared = await post(`/v1/notes/${note.id}`, { fields: { $content: null } });
    expect(cleared.body.fields.$content.value).toBeNull();
    // "fields": null and "relationships": null are the same as absent: nothing changes.
    const untouched = await post(`/v1/notes/${note.id}`, { fields: null, relationships: null });
    expect(untouched.status).toBe(200);
    expect({ ...untouched.body, updatedAt: cleared.body.updatedAt }).toEqual(cleared.body);
    const linked = await post('/v1/notes', { fields: { $title: 'No links' }, relationships: null });
    expect(linked.status).toBe(200);
    expect(linked.body.relationships.$account.values).toEqual([]);
    expect(linked.body.relationships.$createdBy.values).toEqual([suite.ws.memberId]);
  });

  it('keeps line breaks, tabs and every other control character in its text: only a filename refuses them', async () => {
    const title = 'Plan\tB\u0085\u009b';
    const content = 'line\r\nline\u000b\u000c\u001b[1mbold\u007f\u0085next\u009f';
    const created = await post('/v1/notes', { fields: { $title: title, $content: content } });
    expect(created.status).toBe(200);
    expect([created.body.fields.$title.value, created.body.fields.$content.value]).toEqual([title, content]);
    // NUL alone is refused: PostgreSQL cannot store it.
    expectError(await post('/v1/notes', { fields: { $title: 'a\u0000b' } }), 422, 'invalid_value', 'fields.$title');
  });

  it('refuses what the spec refuses, with the codes of docs/api.md §2', async () => {
    const acc = await account('Refusals');
    const note = (await post('/v1/notes', { fields: { $title: 'x' } })).body;
    expectError(await post('/v1/notes', { fields: {} }), 422, 'parameter_missing', 'fields.$title');
    expectError(await post('/v1/notes', {}), 422, 'parameter_missing', 'fields');
    expectError(await post('/v1/notes', { fields: null }), 422, 'parameter_missing', 'fields');
    expectError(await post('/v1/notes', { fields: null, relationships: null }), 422, 'parameter_missing', 'fields');
    expectError(await post('/v1/notes', { fields: { $title: 5 } }), 400, 'invalid_type', 'fields.$title');
    expectError(await post('/v1/notes', { fields: { $title: 'x', $nope: 1 } }), 400, 'unknown_field', 'fields.$nope');
    expectError(await post('/v1/notes', { fields: { $title: 'x' }, extra: 1 }), 400, 'unknown_field', 'extra');
    expectError(
      await post('/v1/notes', { fields: { $title: 'x' }, relationships: { $owner: acc } }),
      400,
      'unknown_relationship',
      'relationships.$owner',
    );
    expectError(
      await post('/v1/notes', { fields: { $title: 'x' }, relationships: { $createdBy: suite.ws.memberId } }),
      422,
      'read_only_field',
      'relationships.$createdBy',
    );
    expectError(
      await post(`/v1/notes/${note.id}`, { relationships: { $account: { replace: [acc] } } }),
      400,
      'invalid_operation',
    );
    const bareId = await post(`/v1/notes/${note.id}`, { relationships: { $account: acc } });
    expectError(bareId, 400, 'invalid_type', 'relationships.$account');
    expect(bareId.body.error.message).toBe('relationships.$account must be an object with add or remove');
    expectError(
      await post('/v1/notes', {
        fields: { $title: 'x' },
        relationships: { $account: 'acc_01AAAAAAAAAAAAAAAAAAAAAAAA' },
      }),
      422,
      'relationship_entity_missing',
      'relationships.$account',
    );
    expectError(
      await post('/v1/notes', { fields: { $title: 'x' }, relationships: { $account: 'garbage' } }),
      422,
      'relationship_entity_missing',
    );
    expectError(
      await post('/v1/notes', { fields: { $title: 'x' }, relationships: { $account: Array(26).fill(acc) } }),
      422,
      'relationship_write_limit_exceeded',
    );
    expectError(
      await post('/v1/notes', { fields: { $title: 'x'.repeat(10_001) } }),
      422,
      'invalid_value',
      'fields.$title',
    );
  });

  it("bounds a record's fields at 2 MiB however many updates add to them, keeping the record as it was", async () => {
    const fresh = await createWorkspace(suite.t.http);
    for (const key of ['part1', 'part2', 'part3']) {
      const added = await suite.t.http
        .post(`/admin/v1/workspaces/${fresh.workspaceId}/object-types/note/fields`)
        .set(adminHeaders())
        .send({ key, label: key, valueType: 'MARKDOWN' });
      expect(added.status).toBe(200);
    }
    const part = 'm'.repeat(900_000);
    const note = await post('/v1/notes', { fields: { $title: 'Big', part1: part } }, fresh.key);
    expect(note.status).toBe(200);
    expect((await post(`/v1/notes/${note.body.id}`, { fields: { part2: part } }, fresh.key)).status).toBe(200);
    const third = await post(`/v1/notes/${note.body.id}`, { fields: { part3: part } }, fresh.key);
    expectError(third, 422, 'invalid_value', 'fields');
    const read = await get(`/v1/notes/${note.body.id}`, fresh.key);
    expect([read.body.fields.part1.value, read.body.fields.part2.value, read.body.fields.part3.value]).toEqual([
      part,
      part,
      null,
    ]);
  });

  it('keeps workspaces apart: another workspace id is 404 on paths and 422 in relationships', async () => {
    const foreignAccount = await account('Foreign', suite.other.key);
    const foreignNote = (await post('/v1/notes', { fields: { $title: 'secret' } }, suite.other.key)).body.id;
    expectError(await get(`/v1/notes/${foreignNote}`), 404, 'not_found');
    expectError(await post(`/v1/notes/${foreignNote}`, { fields: { $title: 'x' } }), 404, 'not_found');
    expectError(await get('/v1/notes/note_bad'), 404, 'not_found');
    expectError(
      await post('/v1/notes', { fields: { $title: 'x' }, relationships: { $account: foreignAccount } }),
      422,
      'relationship_entity_missing',
    );
    const list = await get('/v1/notes?limit=25');
    expect(list.body.data.map((n: { id: string }) => n.id)).not.toContain(foreignNote);
  });

  it('lists newest first with totalCount, and filters', async () => {
    const fresh = await createWorkspace(suite.t.http);
    const acc = await account('Filtered', fresh.key);
    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const body = { fields: { $title: `alpha ${i}` }, relationships: i % 2 ? { $account: acc } : {} };
      ids.push((await post('/v1/notes', body, fresh.key)).body.id);
    }
    const list = await get('/v1/notes?limit=3', fresh.key);
    expect(list.status).toBe(200);
    suite.openapi.assert(list);
    expect(list.body.object).toBe('list');
    expect(list.body.totalCount).toBe(4);
    expect(list.body.data.map((n: { id: string }) => n.id)).toEqual(ids.slice().reverse().slice(0, 3));
    const linked = await get(`/v1/notes?$account=${acc}`, fresh.key);
    expect(linked.body.data.map((n: { id: string }) => n.id)).toEqual([ids[3], ids[1]]);
    expect(linked.body.totalCount).toBe(2);
    const unlinked = await get(`/v1/notes?$account[-equal]=${acc}`, fresh.key);
    expect(unlinked.body.data.map((n: { id: string }) => n.id)).toEqual([ids[2], ids[0]]);
    const prefix = await get(`/v1/notes?${encodeURIComponent('$title[startsWith]')}=alpha%203`, fresh.key);
    expect(prefix.body.data.map((n: { id: string }) => n.id)).toEqual([ids[3]]);
    expectError(await get('/v1/notes?$nope=1', fresh.key), 400, 'unknown_field');
    expectError(await get('/v1/notes?$content=x', fresh.key), 400, 'invalid_filter');
    expectError(await get('/v1/notes?$title[greaterThan]=x', fresh.key), 400, 'invalid_filter');
  });

  it('serves definitions built from the type', async () => {
    const response = await get('/v1/notes/definitions');
    expect(response.status).toBe(200);
    suite.openapi.assert(response);
    expect(response.body.objectType).toBe('note');
    expect(response.body.fieldDefinitions.$title).toMatchObject({ valueType: 'TEXT', required: true, readOnly: false });
    expect(response.body.relationshipDefinitions.$createdBy).toMatchObject({ objectType: 'member', readOnly: true });
  });

  it('requires the note scopes', async () => {
    const member = await createMember(suite.t.http, suite.ws.workspaceId);
    const reader = await createKey(suite.t.http, suite.ws.workspaceId, member.id, ['notes:read']);
    expectError(await post('/v1/notes', { fields: { $title: 'x' } }, reader.key), 403, 'insufficient_scope');
    expect((await get('/v1/notes', reader.key)).status).toBe(200);
    const writer = await createKey(suite.t.http, suite.ws.workspaceId, member.id, ['notes:create']);
    const created = await post('/v1/notes', { fields: { $title: 'by member' } }, writer.key);
    expect(created.body.relationships.$createdBy.values).toEqual([member.id]);
    expectError(await get(`/v1/notes/${created.body.id}`, writer.key), 403, 'insufficient_scope');
    expectError(
      await post(`/v1/notes/${created.body.id}`, { fields: { $title: 'y' } }, writer.key),
      403,
      'insufficient_scope',
    );
  });
});

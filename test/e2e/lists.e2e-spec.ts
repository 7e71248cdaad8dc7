import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createKey, createWorkspace } from '../support/factories';
import { v1Headers } from '../support/test-app';

const MEMBER_TYPES = [
  {
    objectType: 'account',
    key: '$accounts',
    path: 'accounts',
    scope: 'accounts:read',
    body: { fields: { $name: 'Acme' } },
  },
  {
    objectType: 'contact',
    key: '$contacts',
    path: 'contacts',
    scope: 'contacts:read',
    body: { fields: { $name: { firstName: 'Ada' } } },
  },
] as const;

describe('lists', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  const record = async (path: string, body: unknown, key = suite.ws.key): Promise<string> => {
    const response = await post(`/v1/${path}`, body, key);
    expect(response.status).toBe(200);
    return response.body.id;
  };
  const opportunity = async (key = suite.ws.key) => {
    const account = await record('accounts', { fields: { $name: 'For deal' } }, key);
    return record(
      'opportunities',
      { fields: { $name: 'Deal', $stage: 'WON' }, relationships: { $account: account } },
      key,
    );
  };

  it.each(MEMBER_TYPES)(
    'holds $objectType records, newest membership first, listed once',
    async ({ objectType, key, path, body }) => {
      const [a, b, c] = [await record(path, body), await record(path, body), await record(path, body)];
      const created = await post('/v1/lists', {
        fields: { $name: 'Targets', $objectType: `$${objectType}` },
        relationships: { [key]: [a, b, a] },
      });
      expect(created.status).toBe(200);
      suite.openapi.assert(created);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^lst_[0-9A-Z]{26}$/),
        createdAt: expect.any(String),
        fields: {
          $name: { value: 'Targets', valueType: 'TEXT' },
          $objectType: { value: objectType, valueType: 'SINGLE_SELECT' },
        },
        version: 1,
        httpLink: null,
      });
      expect(created.headers.etag).toBe('"v1"');
      const listId = created.body.id;
      const updated = await post(`/v1/lists/${listId}`, {
        fields: { $name: 'Renamed' },
        relationships: { [key]: { add: [c, b], remove: a } },
      });
      expect(updated.status).toBe(200);
      suite.openapi.assert(updated);
      expect(updated.body.fields.$name.value).toBe('Renamed');
      const members = await get(`/v1/lists/${listId}/${path}`);
      expect(members.status).toBe(200);
      suite.openapi.assert(members);
      expect(members.body.totalCount).toBe(2);
      expect(members.body.data.map((m: { id: string }) => m.id)).toEqual([c, b]);
      expect(members.body.data[0].fields).toBeDefined();
      const page = await get(`/v1/lists/${listId}/${path}?limit=1&offset=1`);
      expect(page.body.data.map((m: { id: string }) => m.id)).toEqual([b]);
      expect(page.body.totalCount).toBe(2);
    },
  );

  it('lists the members one request adds newest first, in the reverse of the request, a repeated one at its first place', async () => {
    const accounts: string[] = [];
    for (let i = 0; i < 24; i += 1) accounts.push(await record('accounts', { fields: { $name: `Member ${i}` } }));
    // Newest id first: were the members stamped alike, their order would fall back to the ids.
    const added = [...accounts].reverse();
    // 25 ids, the most one request may add.
    const list = await post('/v1/lists', {
      fields: { $name: 'Many', $objectType: 'account' },
      relationships: { $accounts: [...added, added[3]] },
    });
    expect(list.status).toBe(200);
    const members = await get(`/v1/lists/${list.body.id}/accounts?limit=25`);
    expect(members.body.totalCount).toBe(24);
    expect(members.body.data.map((m: { id: string }) => m.id)).toEqual(accounts);
  });

  it('holds opportunities too', async () => {
    const deal = await opportunity();
    const list = await post('/v1/lists', {
      fields: { $name: 'Deals', $objectType: 'opportunity' },
      relationships: { $opportunities: deal },
    });
    expect(list.status).toBe(200);
    const members = await get(`/v1/lists/${list.body.id}/opportunities`);
    expect(members.body.data.map((m: { id: string }) => m.id)).toEqual([deal]);
  });

  it('refuses mismatched member keys on create and update, and a changed $objectType', async () => {
    const account = await record('accounts', { fields: { $name: 'A' } });
    expectError(
      await post('/v1/lists', {
        fields: { $name: 'L', $objectType: 'contact' },
        relationships: { $accounts: account },
      }),
      422,
      'object_type_mismatch',
      'relationships.$accounts',
    );
    const list = (await post('/v1/lists', { fields: { $name: 'L', $objectType: 'account' } })).body.id;
    expectError(
      await post(`/v1/lists/${list}`, { relationships: { $contacts: { add: account } } }),
      422,
      'object_type_mismatch',
    );
    expectError(
      await post(`/v1/lists/${list}`, { relationships: { $accounts: { replace: account } } }),
      400,
      'invalid_operation',
    );
    expectError(
      await post(`/v1/lists/${list}`, { fields: { $objectType: 'contact' } }),
      422,
      'read_only_field',
      'fields.$objectType',
    );
    expectError(
      await post(`/v1/lists/${list}`, { relationships: { $people: { add: account } } }),
      400,
      'unknown_relationship',
    );
    expectError(await get(`/v1/lists/${list}/contacts`), 422, 'object_type_mismatch');
  });

  it('requires $name and $objectType, validates them and the member ids', async () => {
    const contact = await record('contacts', { fields: {} });
    expectError(
      await post('/v1/lists', { fields: { $objectType: 'account' } }),
      422,
      'parameter_missing',
      'fields.$name',
    );
    expectError(await post('/v1/lists', { fields: { $name: 'x' } }), 422, 'parameter_missing', 'fields.$objectType');
    expectError(
      await post('/v1/lists', { fields: { $name: 'x', $objectType: 'note' } }),
      400,
      'invalid_type',
      'fields.$objectType',
    );
    const numberName = await post('/v1/lists', { fields: { $name: 3, $objectType: 'account' } });
    expectError(numberName, 400, 'invalid_type', 'fields.$name');
    // The message names the member as param does, not by its own name alone.
    expect(numberName.body.error.message).toBe('fields.$name must be a string');
    expectError(
      await post('/v1/lists', { fields: { $name: 'x', $objectType: 'account', $color: 'red' } }),
      400,
      'unknown_field',
    );
    expectError(
      await post('/v1/lists', {
        fields: { $name: 'x', $objectType: 'account' },
        relationships: { $accounts: contact },
      }),
      422,
      'relationship_entity_missing',
      'relationships.$accounts',
    );
    const foreign = await record('accounts', { fields: { $name: 'F' } }, suite.other.key);
    expectError(
      await post('/v1/lists', {
        fields: { $name: 'x', $objectType: 'account' },
        relationships: { $accounts: [foreign] },
      }),
      422,
      'relationship_entity_missing',
    );
    const many = Array.from({ length: 26 }, () => foreign);
    expectError(
      await post('/v1/lists', { fields: { $name: 'x', $objectType: 'account' }, relationships: { $accounts: many } }),
      422,
      'relationship_write_limit_exceeded',
    );
  });

  it('reads null for an optional body member as absent, and a null $name or $objectType as missing', async () => {
    const [a, b] = [
      await record('accounts', { fields: { $name: 'A' } }),
      await record('accounts', { fields: { $name: 'B' } }),
    ];
    const fields = { $name: 'Nulls', $objectType: 'account' };
    for (const relationships of [null, { $accounts: null }]) {
      expect(suite.openapi.refusesRequest('POST', '/v1/lists', { fields, relationships })).toBe(false);
      const created = await post('/v1/lists', { fields, relationships });
      expect({ relationships, status: created.status }).toEqual({ relationships, status: 200 });
      expect((await get(`/v1/lists/${created.body.id}/accounts`)).body.totalCount).toBe(0);
    }
    expectError(await post('/v1/lists', { fields: null }), 422, 'parameter_missing', 'fields.$name');
    expectError(
      await post('/v1/lists', { fields: { $name: null, $objectType: 'account' } }),
      422,
      'parameter_missing',
      'fields.$name',
    );
    expectError(
      await post('/v1/lists', { fields: { $name: 'x', $objectType: null } }),
      422,
      'parameter_missing',
      'fields.$objectType',
    );
    const list = (await post('/v1/lists', { fields, relationships: { $accounts: [a, b] } })).body.id;
    for (const body of [
      { fields: null },
      { relationships: null },
      { relationships: { $accounts: null } },
      { relationships: { $accounts: { add: null, remove: null } } },
    ]) {
      expect(suite.openapi.refusesRequest('POST', `/v1/lists/${list}`, body)).toBe(false);
      const unchanged = await post(`/v1/lists/${list}`, body);
      expect({ body, status: unchanged.status, name: unchanged.body.fields?.$name.value }).toEqual({
        body,
        status: 200,
        name: 'Nulls',
      });
    }
    expect((await get(`/v1/lists/${list}/accounts`)).body.data.map((m: { id: string }) => m.id)).toEqual([b, a]);
    const removed = await post(`/v1/lists/${list}`, { relationships: { $accounts: { add: null, remove: a } } });
    expect(removed.status).toBe(200);
    expect((await get(`/v1/lists/${list}/accounts`)).body.data.map((m: { id: string }) => m.id)).toEqual([b]);
    expectError(await post(`/v1/lists/${list}`, { fields: { $name: null } }), 422, 'parameter_missing', 'fields.$name');
    expectError(await post(`/v1/lists/${list}`, { fields: 'x' }), 400, 'invalid_type', 'fields');
    expectError(await post(`/v1/lists/${list}`, { relationships: 'x' }), 400, 'invalid_type', 'relationships');
  });

  it('validates create and update bodies with their DTOs, and documents what they take', async () => {
    const account = await record('accounts', { fields: { $name: 'Dto' } });
    const fields = { $name: 'Dto', $objectType: 'account' };
    const postText = (path: string, text: string) =>
      suite.t.http.post(path).set(v1Headers(suite.ws.key)).set('Content-Type', 'application/json').send(text);
    expectError(await post('/v1/lists', { fields, extra: 1 }), 400, 'unknown_field', 'extra');
    expectError(
      await postText('/v1/lists', '{"fields":{"$name":"x","$objectType":"account"},"__proto__":{}}'),
      400,
      'unknown_field',
      '__proto__',
    );
    expectError(
      await post('/v1/lists', { fields: { ...fields, $name: ' \n\t' } }),
      422,
      'invalid_value',
      'fields.$name',
    );
    expectError(
      await post('/v1/lists', { fields: { ...fields, $name: 'a\u0000b' } }),
      422,
      'invalid_value',
      'fields.$name',
    );
    expectError(
      await post('/v1/lists', { fields: { ...fields, $name: 'x'.repeat(10_001) } }),
      422,
      'invalid_value',
      'fields.$name',
    );
    // Characters are counted as PostgreSQL counts them: 10,000 emoji are 20,000 UTF-16 units.
    expect((await post('/v1/lists', { fields: { ...fields, $name: '\u{1F600}'.repeat(10_000) } })).status).toBe(200);
    expectError(
      await post('/v1/lists', { fields, relationships: { $accounts: [account, 3] } }),
      400,
      'invalid_type',
      'relationships.$accounts',
    );
    expectError(await post('/v1/lists', { fields, relationships: [account] }), 400, 'invalid_type', 'relationships');

    const list = (await post('/v1/lists', { fields })).body.id;
    expectError(await post(`/v1/lists/${list}`, { name: 'x' }), 400, 'unknown_field', 'name');
    expectError(await post(`/v1/lists/${list}`, { fields: { $color: 'red' } }), 400, 'unknown_field', 'fields.$color');
    expectError(await post(`/v1/lists/${list}`, { fields: { $name: '' } }), 422, 'invalid_value', 'fields.$name');
    expectError(
      await post(`/v1/lists/${list}`, { fields: { $objectType: null } }),
      422,
      'read_only_field',
      'fields.$objectType',
    );
    expectError(
      await post(`/v1/lists/${list}`, { relationships: { $accounts: account } }),
      400,
      'invalid_type',
      'relationships.$accounts',
    );
    expectError(
      await post(`/v1/lists/${list}`, { relationships: { $accounts: { add: 3 } } }),
      400,
      'invalid_type',
      'relationships.$accounts.add',
    );
    expectError(
      await post(`/v1/lists/${list}`, { relationships: { $accounts: { remove: [account, {}] } } }),
      400,
      'invalid_type',
      'relationships.$accounts.remove',
    );
    expect((await get(`/v1/lists/${list}/accounts`)).body.totalCount).toBe(0);

    const { openapi } = suite;
    openapi.assertRequest('POST', '/v1/lists', { fields, relationships: { $accounts: [account] } });
    openapi.assertRequest('POST', `/v1/lists/${list}`, {
      fields: { $name: 'x' },
      relationships: { $accounts: { add: account, remove: [account] } },
    });
    for (const refused of [
      { fields: { ...fields, $name: 3 } },
      { fields: { ...fields, $objectType: 'note' } },
      { fields, relationships: { $people: account } },
    ]) {
      expect({ refused, ok: openapi.refusesRequest('POST', '/v1/lists', refused) }).toEqual({ refused, ok: true });
    }
    for (const refused of [
      { relationships: { $accounts: { add: 3 } } },
      { relationships: { $people: { add: account } } },
      { fields: 'x' },
    ]) {
      expect({ refused, ok: openapi.refusesRequest('POST', `/v1/lists/${list}`, refused) }).toEqual({
        refused,
        ok: true,
      });
    }
  });

  it('lists lists newest first, with only limit and offset', async () => {
    const fresh = await createWorkspace(suite.t.http);
    const ids = [];
    for (const name of ['one', 'two', 'three']) {
      ids.push((await post('/v1/lists', { fields: { $name: name, $objectType: 'contact' } }, fresh.key)).body.id);
    }
    const page = await get('/v1/lists?limit=2', fresh.key);
    expect(page.status).toBe(200);
    suite.openapi.assert(page);
    expect(page.body).toMatchObject({ object: 'list', totalCount: 3 });
    expect(page.body.data.map((l: { id: string }) => l.id)).toEqual([ids[2], ids[1]]);
    expectError(await get('/v1/lists?$name=one', fresh.key), 400, 'invalid_parameter');
  });

  it('keeps workspaces apart', async () => {
    const foreign = (await post('/v1/lists', { fields: { $name: 'secret', $objectType: 'account' } }, suite.other.key))
      .body.id;
    expectError(await get(`/v1/lists/${foreign}`), 404, 'not_found');
    expectError(await get(`/v1/lists/${foreign}/accounts`), 404, 'not_found');
    expectError(await post(`/v1/lists/${foreign}`, { fields: { $name: 'x' } }), 404, 'not_found');
    expectError(await get('/v1/lists/lst_nope'), 404, 'not_found');
  });

  it('needs both scopes on membership routes', async () => {
    const list = (await post('/v1/lists', { fields: { $name: 'L', $objectType: 'account' } })).body.id;
    const listsOnly = await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['lists:read']);
    const accountsOnly = await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['accounts:read']);
    const both = await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, [
      'lists:read',
      'accounts:read',
    ]);
    expectError(await get(`/v1/lists/${list}/accounts`, listsOnly.key), 403, 'insufficient_scope');
    expectError(await get(`/v1/lists/${list}/accounts`, accountsOnly.key), 403, 'insufficient_scope');
    expect((await get(`/v1/lists/${list}/accounts`, both.key)).status).toBe(200);
    expectError(
      await post('/v1/lists', { fields: { $name: 'x', $objectType: 'account' } }, both.key),
      403,
      'insufficient_scope',
    );
  });
});

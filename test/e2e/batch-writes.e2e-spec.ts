import type { Response } from 'supertest';
import { apiSuite, twoInstances } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { RecordsApi } from '../support/records';
import { adminHeaders, createTestApp, TestApp, v1Headers } from '../support/test-app';

type Result = {
  status: number;
  outcome?: string;
  data?: {
    id: string;
    updatedAt: string | null;
    externalId: string | null;
    fields: Record<string, { value: unknown }>;
  };
  error?: { code: string; param?: string };
};

/**
 * Batch writes and upserts (docs/api.md, "Batch writes"): each input is the single write's body,
 * with its errors; atomic batches write all or nothing; per-item batches answer 207 when any input
 * failed; upserts make exactly one record per match value, also under concurrency.
 */
describe('batch writes and upserts', () => {
  const suite = apiSuite();
  let ws: TestWorkspace;
  let api: RecordsApi;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    suite.t.http
      .post(path)
      .set({ ...v1Headers(ws.key), ...headers })
      .send(body as object);
  const results = (response: Response): Result[] => (response.body as { results: Result[] }).results;
  const count = async (collection: string, filter = ''): Promise<number> =>
    (await suite.t.http.get(`/v1/${collection}?limit=1${filter}`).set(v1Headers(ws.key))).body.totalCount as number;
  /** The events of the workspace's feed of these types, oldest first. */
  const events = async (types: string): Promise<{ type: string; entityId: string; changes?: unknown }[]> =>
    (await suite.t.http.get(`/v1/events?limit=100&types=${types}`).set(v1Headers(ws.key))).body.data;

  beforeEach(async () => {
    // A workspace per test: counts and the event feed are the test's own.
    ws = await createWorkspace(suite.t.http);
    api = new RecordsApi(suite.t, suite.openapi, ws.key, ws.workspaceId);
    await api.addField('contact', { key: 'jobTitle', label: 'Job title', valueType: 'TEXT' });
  });

  describe('batch/create', () => {
    it('creates every input in order and answers 200 with one result each', async () => {
      const response = await post('/v1/contacts/batch/create', {
        inputs: [
          { fields: { $name: { firstName: 'Ada' } } },
          { fields: { $name: { firstName: 'Grace' } }, externalId: 'ext-2' },
        ],
      });
      expect(response.status).toBe(200);
      suite.openapi.assert(response);
      expect(
        results(response).map((r) => [
          r.status,
          r.outcome,
          (r.data?.fields.$name.value as { firstName: string }).firstName,
        ]),
      ).toEqual([
        [200, 'created', 'Ada'],
        [200, 'created', 'Grace'],
      ]);
      expect(results(response)[1].data!.externalId).toBe('ext-2');
      expect(await count('contacts')).toBe(2);
      const created = await events('contact.created');
      expect(created.map((event) => event.entityId)).toEqual(results(response).map((r) => r.data!.id));
      // The record reads back as the batch answered it.
      const first = results(response)[0].data!;
      expect((await api.retrieve('contact', first.id)).fields).toEqual(first.fields);
    });

    it('per item (the default): failing inputs answer their own error, param prefixed, and the rest are written: 207', async () => {
      const response = await post('/v1/accounts/batch/create', {
        inputs: [
          { fields: { $name: 'Ada' } },
          { fields: {} },
          { fields: { $name: 'Bad', $nope: 1 } },
          { fields: { $name: 'Linked' }, relationships: { $contact: 'con_00000000000000000000000000' } },
          { fields: { $name: 'Grace' } },
        ],
      });
      expect(response.status).toBe(207);
      suite.openapi.assert(response);
      expect(results(response).map((r) => [r.status, r.outcome ?? r.error!.code, r.error?.param])).toEqual([
        [200, 'created', undefined],
        [422, 'parameter_missing', 'inputs[1].fields.$name'],
        [400, 'unknown_field', 'inputs[2].fields.$nope'],
        [422, 'relationship_entity_missing', 'inputs[3].relationships.$contact'],
        [200, 'created', undefined],
      ]);
      expect(await count('accounts')).toBe(2);
      expect(await events('account.created')).toHaveLength(2);
    });

    it('atomic: the first failing input is the answer, and nothing is written', async () => {
      const response = await post('/v1/contacts/batch/create', {
        atomic: true,
        inputs: [
          { fields: { $name: { firstName: 'Ada' } } },
          { fields: { $name: { firstName: 'Bo' }, $email: ['not an email'] } },
          { fields: { $nope: 1 } },
        ],
      });
      expectError(response, 422, 'invalid_value', 'inputs[1].fields.$email[0]');
      expect(await count('contacts')).toBe(0);
      expect(await events('contact.created')).toEqual([]);
      // An externalId taken by another record is found before anything is written, too.
      await api.create('contact', { fields: { $name: { firstName: 'Held' } }, externalId: 'held' });
      const taken = await post('/v1/contacts/batch/create', {
        atomic: true,
        inputs: [
          { fields: { $name: { firstName: 'Ada' } } },
          { fields: { $name: { firstName: 'Bo' } }, externalId: 'held' },
        ],
      });
      expectError(taken, 409, 'duplicate_value', 'inputs[1].externalId');
      expect(await count('contacts')).toBe(1);
    });

    it('takes 1 to 100 inputs, and refuses a malformed body as the single write would', async () => {
      const many = Array.from({ length: 101 }, () => ({ fields: { $title: 'x' } }));
      expectError(await post('/v1/notes/batch/create', { inputs: many }), 422, 'invalid_value', 'inputs');
      expectError(await post('/v1/notes/batch/create', { inputs: [] }), 422, 'invalid_value', 'inputs');
      expectError(await post('/v1/notes/batch/create', {}), 422, 'parameter_missing', 'inputs');
      expectError(await post('/v1/notes/batch/create', { inputs: {} }), 400, 'invalid_type', 'inputs');
      expectError(
        await post('/v1/notes/batch/create', { inputs: [{ fields: { $title: 'x' } }], atomic: 'yes' }),
        400,
        'invalid_type',
        'atomic',
      );
      expectError(
        await post('/v1/notes/batch/create', { inputs: [{ fields: { $title: 'x' } }], extra: 1 }),
        400,
        'unknown_field',
        'extra',
      );
      const hundred = await post('/v1/notes/batch/create', { inputs: many.slice(1) });
      expect(hundred.status).toBe(200);
      expect(await count('notes')).toBe(100);
    });

    it('two inputs with one externalId: the second is 409 duplicate_value', async () => {
      const response = await post('/v1/contacts/batch/create', {
        inputs: [
          { fields: { $name: { firstName: 'A' } }, externalId: 'same' },
          { fields: { $name: { firstName: 'B' } }, externalId: 'same' },
        ],
      });
      expect(response.status).toBe(207);
      expect(results(response).map((r) => r.status)).toEqual([200, 409]);
      expect(results(response)[1].error).toMatchObject({ code: 'duplicate_value', param: 'inputs[1].externalId' });
    });

    it('records the events of the single creates: the notes, their default author, and the account each links', async () => {
      const account = (await api.account('Linked')).id;
      const response = await post('/v1/notes/batch/create', {
        inputs: [
          { fields: { $title: 'One' }, relationships: { $account: account } },
          { fields: { $title: 'Two' }, relationships: { $account: [account] } },
        ],
      });
      expect(response.status).toBe(200);
      for (const result of results(response)) {
        expect(result.data).toMatchObject({
          relationships: { $account: { values: [account] }, $createdBy: { values: [ws.memberId] } },
        });
      }
      expect((await events('note.created')).map((event) => event.entityId)).toEqual(
        results(response).map((r) => r.data!.id),
      );
      const accountEvents = await events('account.updated');
      expect(accountEvents).toEqual([
        expect.objectContaining({ entityId: account, changes: { fields: [], relationships: ['$note'] } }),
      ]);
      expect((await api.retrieve('account', account)).relationships.$note.values).toHaveLength(2);
    });

    it('moves a contact into a new account from its old one, as the single create does; one contact moved twice is 422 for the later input', async () => {
      const old = (await api.account('Old')).id;
      const ada = (await api.contact('Ada', { relationships: { $account: old } })).id;
      const bo = (await api.contact('Bo')).id;
      const before = (await events('account.updated,contact.updated')).length;
      const response = await post('/v1/accounts/batch/create', {
        inputs: [
          { fields: { $name: 'New' }, relationships: { $contact: [ada, bo] } },
          { fields: { $name: 'Also new' }, relationships: { $contact: ada } },
        ],
      });
      expect(response.status).toBe(207);
      expect(results(response).map((r) => [r.status, r.error?.param])).toEqual([
        [200, undefined],
        [422, 'inputs[1].relationships.$contact'],
      ]);
      const made = results(response)[0].data!.id;
      expect((await api.retrieve('account', old)).relationships.$contact.values).toEqual([]);
      expect((await api.retrieve('contact', ada)).relationships.$account.values).toEqual([made]);
      const updated = (await events('account.updated,contact.updated')).slice(before);
      expect(updated.map((event) => [event.type, event.entityId]).sort()).toEqual(
        [
          ['account.updated', old],
          ['contact.updated', ada],
          ['contact.updated', bo],
        ].sort(),
      );
    });

    it('custom types, under /v1/objects/{slug}/values/batch/create, with unique fields checked across the batch', async () => {
      await suite.t.http
        .post(`/admin/v1/workspaces/${ws.workspaceId}/object-types`)
        .set(adminHeaders())
        .send({ slug: 'badge', label: 'Badge', fields: { code: { label: 'Code', valueType: 'TEXT', unique: true } } })
        .expect(200);
      expect((await post('/v1/objects/badge/values', { fields: { code: 'TAKEN' } })).status).toBe(200);
      const response = await post('/v1/objects/badge/values/batch/create', {
        inputs: [
          { fields: { code: 'A' } },
          { fields: { code: 'TAKEN' } },
          { fields: { code: 'A' } },
          { fields: { code: 'B' } },
        ],
      });
      expect(response.status).toBe(207);
      expect(results(response).map((r) => [r.status, r.error?.param])).toEqual([
        [200, undefined],
        [409, 'inputs[1].fields.code'],
        [409, 'inputs[2].fields.code'],
        [200, undefined],
      ]);
      expectError(
        await post('/v1/objects/nothing/values/batch/create', { inputs: [{ fields: {} }] }),
        404,
        'not_found',
      );
      expectError(
        await post('/v1/objects/contact/values/batch/create', { inputs: [{ fields: {} }] }),
        404,
        'not_found',
      );
    });
  });

  describe('batch/update', () => {
    it('updates the given members only; an input that changes nothing is unchanged, without event or new updatedAt', async () => {
      const a = await api.contact('Ada');
      const b = await api.contact('Bo');
      const account = (await api.account('Acme')).id;
      const response = await post('/v1/contacts/batch/update', {
        inputs: [
          { id: a.id, fields: { jobTitle: 'Engineer' } },
          { id: b.id, fields: { $name: { firstName: 'Bo' } } },
          { id: 'con_00000000000000000000000000', fields: {} },
          { id: b.id.replace(/^con_/, 'acc_') },
          { fields: {} },
        ],
      });
      expect(response.status).toBe(207);
      suite.openapi.assert(response);
      expect(results(response).map((r) => [r.status, r.outcome ?? r.error!.code, r.error?.param])).toEqual([
        [200, 'updated', undefined],
        [200, 'unchanged', undefined],
        [404, 'not_found', 'inputs[2]'],
        [404, 'not_found', 'inputs[3]'],
        [422, 'parameter_missing', 'inputs[4].id'],
      ]);
      expect(results(response)[0].data!.fields.jobTitle.value).toBe('Engineer');
      expect(results(response)[1].data!.updatedAt).toBeNull();
      expect(await events('contact.updated')).toEqual([
        expect.objectContaining({ entityId: a.id, changes: { fields: ['jobTitle'], relationships: [] } }),
      ]);

      const linked = await post('/v1/contacts/batch/update', {
        atomic: true,
        inputs: [{ id: a.id, relationships: { $account: { replace: account } } }],
      });
      expect(linked.status).toBe(200);
      expect(results(linked)[0].data).toMatchObject({ relationships: { $account: { values: [account] } } });
      expect((await events('account.updated')).map((event) => event.entityId)).toEqual([account]);
    });

    it('an input that would take a record past 2 MiB of fields is refused alone, as the single update is', async () => {
      await suite.t.http
        .post(`/admin/v1/workspaces/${ws.workspaceId}/object-types`)
        .set(adminHeaders())
        .send({
          slug: 'tome',
          label: 'Tome',
          fields: {
            a: { label: 'A', valueType: 'MARKDOWN' },
            b: { label: 'B', valueType: 'MARKDOWN' },
            c: { label: 'C', valueType: 'MARKDOWN' },
          },
        })
        .expect(200);
      // 900,000 bytes each (é is two): under the 1 MiB body limit, 2 MiB together with a third.
      const big = 'é'.repeat(450_000);
      const tome = (await post('/v1/objects/tome/values', { fields: { a: big } })).body.id as string;
      expect((await post(`/v1/objects/tome/values/${tome}`, { fields: { b: big } })).status).toBe(200);
      const small = (await post('/v1/objects/tome/values', { fields: { a: 'small' } })).body.id as string;
      const third = 'é'.repeat(200_000);
      const response = await post('/v1/objects/tome/values/batch/update', {
        inputs: [
          { id: tome, fields: { c: third } },
          { id: small, fields: { c: third } },
        ],
      });
      expect(response.status).toBe(207);
      expect(results(response).map((r) => [r.status, r.outcome ?? r.error!.code, r.error?.param])).toEqual([
        [422, 'invalid_value', 'inputs[0].fields'],
        [200, 'updated', undefined],
      ]);
      expectError(
        await post(`/v1/objects/tome/values/${tome}`, { fields: { c: third } }),
        422,
        'invalid_value',
        'fields',
      );
    });

    it('atomic: one missing record fails the batch, nothing changes; one id twice is 422 for the second', async () => {
      const a = await api.contact('Ada');
      const atomic = await post('/v1/contacts/batch/update', {
        atomic: true,
        inputs: [
          { id: a.id, fields: { jobTitle: 'Changed' } },
          { id: 'con_00000000000000000000000000', fields: { jobTitle: 'x' } },
        ],
      });
      expectError(atomic, 404, 'not_found', 'inputs[1]');
      expect((await api.retrieve('contact', a.id)).fields.jobTitle.value).toBeNull();
      const twice = await post('/v1/contacts/batch/update', {
        inputs: [
          { id: a.id, fields: { jobTitle: 'One' } },
          { id: a.id, fields: { jobTitle: 'Two' } },
        ],
      });
      expect(results(twice).map((r) => [r.status, r.error?.param])).toEqual([
        [200, undefined],
        [422, 'inputs[1].id'],
      ]);
    });
  });

  describe('upsert', () => {
    it('matches on externalId: created, then updated with the given members, then unchanged (no event, updatedAt unmoved)', async () => {
      const body = { matchOn: 'externalId', externalId: 'crm-1', fields: { $name: { firstName: 'Ada' } } };
      const created = await post('/v1/contacts/upsert', body);
      expect(created.status).toBe(200);
      suite.openapi.assert(created);
      expect(created.body).toMatchObject({ outcome: 'created', data: { externalId: 'crm-1' } });
      const id = created.body.data.id as string;
      const updated = await post('/v1/contacts/upsert', {
        matchOn: 'externalId',
        externalId: 'crm-1',
        fields: { jobTitle: 'CTO' },
      });
      expect(updated.body).toMatchObject({
        outcome: 'updated',
        data: { id, fields: { $name: { value: { firstName: 'Ada' } }, jobTitle: { value: 'CTO' } } },
      });
      const unchanged = await post('/v1/contacts/upsert', {
        matchOn: 'externalId',
        externalId: 'crm-1',
        fields: { jobTitle: 'CTO' },
      });
      expect(unchanged.body).toMatchObject({
        outcome: 'unchanged',
        data: { id, updatedAt: updated.body.data.updatedAt },
      });
      expect((await events('contact.created,contact.updated')).map((event) => event.type)).toEqual([
        'contact.created',
        'contact.updated',
      ]);
      expect(await count('contacts')).toBe(1);
    });

    it('refuses a matchOn that is neither externalId nor a unique field, and an input without its value', async () => {
      await api.addField('contact', { key: 'nickname', label: 'Nickname', valueType: 'TEXT' });
      expectError(
        await post('/v1/contacts/upsert', { matchOn: 'nickname', fields: { nickname: 'x' } }),
        422,
        'invalid_value',
        'matchOn',
      );
      expectError(
        await post('/v1/contacts/upsert', { matchOn: '$name', fields: { $name: { firstName: 'x' } } }),
        422,
        'invalid_value',
        'matchOn',
      );
      expectError(
        await post('/v1/contacts/upsert', { fields: { $name: { firstName: 'x' } } }),
        422,
        'parameter_missing',
        'matchOn',
      );
      expectError(
        await post('/v1/contacts/upsert', { matchOn: 'externalId', fields: { $name: { firstName: 'x' } } }),
        422,
        'parameter_missing',
        'externalId',
      );
      // Created, it must be a valid create; matched, a valid update.
      expectError(
        await post('/v1/accounts/upsert', { matchOn: 'externalId', externalId: 'e', fields: {} }),
        422,
        'parameter_missing',
        'fields.$name',
      );
      const batch = await post('/v1/contacts/batch/upsert', {
        matchOn: 'externalId',
        inputs: [{ fields: { $name: { firstName: 'x' } } }],
      });
      expect(results(batch)[0]).toMatchObject({
        status: 422,
        error: { code: 'parameter_missing', param: 'inputs[0].externalId' },
      });
      expectError(
        await post('/v1/contacts/batch/upsert', { matchOn: 'nope', inputs: [{ fields: {} }] }),
        422,
        'invalid_value',
        'matchOn',
      );
    });

    it('matches on a unique field; a multi-valued one held by two records is 409 ambiguous_match; one value twice in a batch is 422', async () => {
      await api.addField('contact', { key: 'crmEmail', label: 'CRM email', valueType: 'EMAIL', unique: true });
      await api.addField('contact', {
        key: 'codes',
        label: 'Codes',
        valueType: 'TEXT',
        unique: true,
        typeConfiguration: { multipleValues: true },
      });
      const a = await api.contact('A', { fields: { codes: ['a'] } });
      const b = await api.contact('B', { fields: { codes: ['b'] } });
      const response = await post('/v1/contacts/batch/upsert', {
        matchOn: 'codes',
        inputs: [
          { fields: { codes: ['a', 'b'], jobTitle: 'x' } },
          { fields: { codes: ['b'], jobTitle: 'Again' } },
          { fields: { $name: { firstName: 'C' }, codes: ['c'] } },
          { fields: { $name: { firstName: 'C2' }, codes: ['c'] } },
        ],
      });
      expect(response.status).toBe(207);
      suite.openapi.assert(response);
      expect(results(response).map((r) => [r.status, r.outcome ?? r.error!.code, r.error?.param])).toEqual([
        [409, 'ambiguous_match', 'inputs[0].fields.codes'],
        [422, 'invalid_value', 'inputs[1].fields.codes'],
        [200, 'created', undefined],
        [422, 'invalid_value', 'inputs[3].fields.codes'],
      ]);
      expect((await api.retrieve('contact', b.id)).fields.jobTitle.value).toBeNull();
      const onlyA = await post('/v1/contacts/upsert', {
        matchOn: 'codes',
        fields: { codes: ['a'], jobTitle: 'Only A' },
      });
      expect(onlyA.body).toMatchObject({
        outcome: 'updated',
        data: { id: a.id, fields: { jobTitle: { value: 'Only A' } } },
      });

      const byEmail = await post('/v1/contacts/upsert', {
        matchOn: 'crmEmail',
        fields: { $name: { firstName: 'E' }, crmEmail: 'e@example.com' },
      });
      expect(byEmail.body.outcome).toBe('created');
      const again = await post('/v1/contacts/upsert', {
        matchOn: 'crmEmail',
        fields: { crmEmail: 'e@example.com', jobTitle: 'Boss' },
      });
      expect(again.body).toMatchObject({ outcome: 'updated', data: { id: byEmail.body.data.id } });
    });

    it('batch/upsert: half new, half existing, atomic or not', async () => {
      await api.create('contact', { fields: { $name: { firstName: 'Old' } }, externalId: 'x-1' });
      const response = await post('/v1/contacts/batch/upsert', {
        matchOn: 'externalId',
        atomic: true,
        inputs: [
          { externalId: 'x-1', fields: { jobTitle: 'Updated' } },
          { externalId: 'x-2', fields: { $name: { firstName: 'New' } } },
        ],
      });
      expect(response.status).toBe(200);
      expect(results(response).map((r) => r.outcome)).toEqual(['updated', 'created']);
      expect(await count('contacts')).toBe(2);
      const failing = await post('/v1/contacts/batch/upsert', {
        matchOn: 'externalId',
        atomic: true,
        inputs: [
          { externalId: 'x-3', fields: { $name: { firstName: 'New' } } },
          { externalId: 'x-1', fields: { $nope: 1 } },
        ],
      });
      expectError(failing, 400, 'unknown_field', 'inputs[1].fields.$nope');
      expect(await count('contacts')).toBe(2);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the whole answer of a batch, 207 and items included', async () => {
      const body = { inputs: [{ fields: { $title: 'Kept' } }, { fields: {} }] };
      const first = await post('/v1/notes/batch/create', body, { 'Idempotency-Key': 'batch-1' });
      expect(first.status).toBe(207);
      const replay = await post('/v1/notes/batch/create', body, { 'Idempotency-Key': 'batch-1' });
      expect(replay.status).toBe(207);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect(await count('notes')).toBe(1);
    });
  });
});

describe('concurrent upserts of one value from two instances', () => {
  const pair = twoInstances();

  it('make exactly one record; every other answer is updated or unchanged', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_unused, index) =>
        pair.apps[index % 2].http
          .post(index % 4 < 2 ? '/v1/contacts/upsert' : '/v1/contacts/batch/upsert')
          .set(v1Headers(pair.ws.key))
          .send(
            index % 4 < 2
              ? {
                  matchOn: 'externalId',
                  externalId: 'race',
                  fields: { $name: { firstName: 'Racer' }, $email: [`r${index % 3}@example.com`] },
                }
              : {
                  matchOn: 'externalId',
                  inputs: [
                    {
                      externalId: 'race',
                      fields: { $name: { firstName: 'Racer' }, $email: [`r${index % 3}@example.com`] },
                    },
                  ],
                },
          ),
      ),
    );
    const outcomes = answers.map((answer, index) => {
      expect({ index, status: answer.status }).toEqual({ index, status: 200 });
      return index % 4 < 2 ? answer.body.outcome : answer.body.results[0].outcome;
    });
    expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(1);
    expect(outcomes.every((outcome) => ['created', 'updated', 'unchanged'].includes(outcome))).toBe(true);
    const list = await pair.apps[0].http.get('/v1/contacts?limit=1').set(v1Headers(pair.ws.key));
    expect(list.body.totalCount).toBe(1);
  });
});

describe('the batch-items rate limit', () => {
  let t: TestApp;
  let ws: TestWorkspace;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_BATCH_ITEMS: '150' } });
    ws = await createWorkspace(t.http);
  });
  afterAll(() => t.close());

  it('counts each input of a batch, with its own headers; a call over it is 429 before anything is written', async () => {
    const inputs = Array.from({ length: 100 }, (_unused, index) => ({ fields: { $title: `Limited ${index}` } }));
    // The window is a second: start at the beginning of one, so that both calls fall in it.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
    const first = await t.http.post('/v1/notes/batch/create').set(v1Headers(ws.key)).send({ inputs });
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-batch-items-limit']).toBe('150');
    expect(first.headers['x-ratelimit-batch-items-remaining']).toBe('50');
    // The call itself counts once in the write bucket.
    expect(first.headers['ratelimit']).toMatch(/^"write";r=\d+;t=\d+$/);
    const second = await t.http.post('/v1/notes/batch/create').set(v1Headers(ws.key)).send({ inputs });
    expectError(second, 429, 'rate_limited');
    expect(second.headers['retry-after']).toMatch(/^\d+$/);
    const list = await t.http.get('/v1/notes?limit=1').set(v1Headers(ws.key));
    expect(list.body.totalCount).toBe(100);
  });
});

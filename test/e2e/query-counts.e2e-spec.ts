import { randomBytes } from 'node:crypto';
import { Transactions } from '../../src/database/transactions';
import { WebhooksRepository } from '../../src/modules/webhooks/webhooks.repository';
import { DataSource } from 'typeorm';
import { apiSuite } from '../support/api-suite';
import { createMember } from '../support/factories';
import { countQueries } from '../support/query-counter';
import { RecordsApi } from '../support/records';
import { v1Headers } from '../support/test-app';
import { uploadFile } from '../support/transcripts';

const HOUR = 3_600_000;
const meetingFields = () => ({
  $title: 'Counted',
  $startDate: new Date(Date.now() - 2 * HOUR).toISOString(),
  $endDate: new Date(Date.now() - HOUR).toISOString(),
});

type Request = () => Promise<{ status: number; body: unknown }>;

/**
 * The statements one request sends, the API-key lookup, BEGIN and COMMIT included; a write appends
 * its change events in one statement, however many. Each bound is
 * what the request cost when the bound was set: a change may lower it, and should lower the bound
 * with it.
 */
describe('statements per request', () => {
  const suite = apiSuite();
  let api: RecordsApi;
  let account: string;
  let accounts: string[];
  let note: string;
  let list: string;
  let meeting: string;
  let transcripts: string[];
  /** Lists of more than one item, and the nextCursor of a first page of one item of each (read before counting). */
  const paged = new Map<string, { path: string; cursor?: string }>();
  const cursorPage = (name: string) => () => suite.get(`${paged.get(name)!.path}?cursor=${paged.get(name)!.cursor}`);

  /** Contacts with externalIds `counted-0`…`counted-99`, made in one batch. */
  let contacts: string[];
  let batchRound = 0;
  /** Contact inputs: `existing` of them with the externalId of a contact there is, the rest with new ones. */
  const contactInputs = (count: number, existing = 0) => {
    batchRound += 1;
    return Array.from({ length: count }, (_unused, index) => ({
      externalId: index < existing ? `counted-${index}` : `counted-${batchRound}-${index}`,
      fields: { $name: { firstName: `Counted ${batchRound}` }, $email: [`counted-${batchRound}-${index}@example.com`] },
    }));
  };
  const noteInputs = (count: number) =>
    Array.from({ length: count }, (_unused, index) => ({
      fields: { $title: `Batch ${index}` },
      relationships: { $account: accounts[index % 3] },
    }));
  const batchCases: [string, (inputs: number) => Request][] = [
    [
      'POST /v1/contacts/batch/create',
      (n) => () =>
        suite.post('/v1/contacts/batch/create', { inputs: contactInputs(n).map(({ fields }) => ({ fields })) }),
    ],
    [
      'POST /v1/notes/batch/create, each note linking an account',
      (n) => () => suite.post('/v1/notes/batch/create', { inputs: noteInputs(n) }),
    ],
    [
      'POST /v1/contacts/batch/update',
      (n) => () =>
        suite.post('/v1/contacts/batch/update', {
          inputs: contactInputs(n).map(({ fields }, index) => ({ id: contacts[index], fields })),
        }),
    ],
    [
      'POST /v1/contacts/batch/upsert on externalId, half existing',
      (n) => () => suite.post('/v1/contacts/batch/upsert', { matchOn: 'externalId', inputs: contactInputs(n, n / 2) }),
    ],
  ];

  beforeAll(async () => {
    api = new RecordsApi(suite.t, suite.openapi, suite.ws.key, suite.ws.workspaceId);
    const made = await suite.post('/v1/contacts/batch/create', {
      inputs: Array.from({ length: 100 }, (_unused, index) => ({
        externalId: `counted-${index}`,
        fields: { $name: { firstName: 'Counted' } },
      })),
    });
    contacts = (made.body as { results: { data: { id: string } }[] }).results.map((result) => result.data.id);
    account = (await api.account('Counted')).id;
    accounts = [account, (await api.account('Counted too')).id, (await api.account('Counted three')).id];
    note = (await api.create('note', { fields: { $title: 'Counted' }, relationships: { $account: account } })).id;
    const created = await suite.post('/v1/lists', {
      fields: { $name: 'Counted', $objectType: 'account' },
      relationships: { $accounts: account },
    });
    list = created.body.id;
    meeting = (await suite.post('/v1/meetings', { fields: meetingFields() })).body.id;
    transcripts = [await uploadFile(suite.t.http, suite.ws.key), await uploadFile(suite.t.http, suite.ws.key)];
    await api.create('note', { fields: { $title: 'Counted too' }, relationships: { $account: account } });
    await suite.post('/v1/meetings', { fields: meetingFields() });
    const members = await suite.post('/v1/lists', {
      fields: { $name: 'Paged', $objectType: 'account' },
      relationships: { $accounts: accounts },
    });
    await createMember(suite.t.http, suite.ws.workspaceId);
    paged.set('notes', { path: '/v1/notes' });
    paged.set('notes filtered', { path: `/v1/notes?$account=${account}` });
    paged.set('meetings', { path: '/v1/meetings' });
    paged.set('list members', { path: `/v1/lists/${members.body.id}/accounts` });
    paged.set('lists', { path: '/v1/lists' });
    paged.set('files', { path: '/v1/files' });
    paged.set('members', { path: '/v1/members' });
    for (const [name, list] of paged) {
      const first = await suite.get(`${list.path}${list.path.includes('?') ? '&' : '?'}limit=1`);
      if (typeof first.body.nextCursor !== 'string')
        throw new Error(`${name}: no nextCursor: ${JSON.stringify(first.body)}`);
      // The cursor carries the filters: sent alone, on the list's path.
      paged.set(name, { path: list.path.replace(/\?.*$/, ''), cursor: first.body.nextCursor });
    }
  });

  const cases: [string, number, Request][] = [
    ['GET /v1/notes/{id}', 2, () => api.retrieveRaw('note', note)],
    ['GET /v1/notes', 2, () => api.list('note', { limit: 25 })],
    // The key lookup, then the record, its counter and its `$createdBy` link in one statement.
    ['POST /v1/notes', 2, () => api.createRaw('note', { fields: { $title: 'More' } })],
    // The account it links changes too (its updatedAt, its event), and the events are appended before COMMIT.
    [
      'POST /v1/notes with a relationship',
      7,
      () => api.createRaw('note', { fields: { $title: 'More' }, relationships: { $account: account } }),
    ],
    // BEGIN, the patch (which writes only a change), the event, COMMIT: the event must commit with the change.
    ['POST /v1/notes/{id}', 5, () => api.updateRaw('note', note, { fields: { $content: 'Edited' } })],
    [
      'POST /v1/notes/{id} with links',
      8,
      () => api.updateRaw('note', note, { relationships: { $account: { remove: account, add: account } } }),
    ],
    [
      'POST /v1/lists',
      7,
      () =>
        suite.post('/v1/lists', {
          fields: { $name: 'More', $objectType: 'account' },
          relationships: { $accounts: account },
        }),
    ],
    // The members are added in one statement, however many.
    [
      'POST /v1/lists with three members',
      7,
      () =>
        suite.post('/v1/lists', {
          fields: { $name: 'More', $objectType: 'account' },
          relationships: { $accounts: accounts },
        }),
    ],
    [
      'POST /v1/lists/{id}',
      7,
      () =>
        suite.post(`/v1/lists/${list}`, {
          fields: { $name: 'Renamed' },
          relationships: { $accounts: { add: account } },
        }),
    ],
    ['GET /v1/lists/{id}', 2, () => suite.get(`/v1/lists/${list}`)],
    ['GET /v1/lists/{id}/accounts', 3, () => suite.get(`/v1/lists/${list}/accounts`)],
    ['GET /v1/meetings/{id}', 3, () => suite.get(`/v1/meetings/${meeting}`)],
    ['GET /v1/meetings', 3, () => suite.get('/v1/meetings?limit=25')],
    [
      'GET /v1/meetings filtered on a hidden relationship',
      3,
      () => suite.get(`/v1/meetings?limit=25&$transcript=${transcripts[0]}`),
    ],
    [
      'POST /v1/meetings/{id}',
      9,
      () => suite.post(`/v1/meetings/${meeting}`, { fields: { $privacySetting: 'METADATA' } }),
    ],
    // A transcript adds two: its file's text read before the transaction (file storage is not read
    // under a lock) and its words written into the meeting's search document in it.
    [
      'POST /v1/meetings/{id} replacing the transcript',
      16,
      () => suite.post(`/v1/meetings/${meeting}`, { relationships: { $transcript: { replace: transcripts[0] } } }),
    ],
    [
      'POST /v1/meetings with a transcript',
      11,
      () => suite.post('/v1/meetings', { fields: meetingFields(), relationships: { $transcript: transcripts[1] } }),
    ],
    ['GET /v1/files', 2, () => suite.get('/v1/files?limit=25')],
    ['GET /v1/members', 2, () => suite.get('/v1/members?limit=25')],
    // A cursor's page is one statement, as an offset's is.
    ['GET /v1/notes with a cursor', 2, cursorPage('notes')],
    ['GET /v1/notes with a cursor of $account=', 2, cursorPage('notes filtered')],
    ['GET /v1/meetings with a cursor', 3, cursorPage('meetings')],
    ['GET /v1/lists/{id}/accounts with a cursor', 3, cursorPage('list members')],
    ['GET /v1/lists with a cursor', 2, cursorPage('lists')],
    ['GET /v1/files with a cursor', 2, cursorPage('files')],
    ['GET /v1/members with a cursor', 2, cursorPage('members')],
  ];

  // The key lookup, BEGIN, the value locks, the checks, one statement per table written, the read back, the events, COMMIT.
  cases.push(
    ['POST /v1/contacts/batch/create with 100 inputs', 6, batchCases[0][1](100)],
    ['POST /v1/notes/batch/create with 100 inputs, each linking an account', 9, batchCases[1][1](100)],
    ['POST /v1/contacts/batch/update with 100 inputs', 7, batchCases[2][1](100)],
    ['POST /v1/contacts/batch/upsert with 100 inputs, half existing', 10, batchCases[3][1](100)],
  );

  it.each(batchCases)('%s: as many statements for 100 inputs as for 2', async (_name, request) => {
    const two = await countQueries(request(2));
    const hundred = await countQueries(request(100));
    expect([two.result.status, hundred.result.status]).toEqual([200, 200]);
    expect(hundred.queries.length).toBe(two.queries.length);
  });

  it.each(cases)('%s: at most %d', async (_name, bound, request) => {
    const { result, queries } = await countQueries(request);
    expect({ status: result.status, body: result.status === 200 ? undefined : result.body }).toEqual({
      status: 200,
      body: undefined,
    });
    expect({ count: queries.length, queries }).toEqual({ count: Math.min(queries.length, bound), queries });
  });
});

/**
 * Webhook fan-out is off the write path (docs/api.md §13): a create in a workspace with ten
 * subscribed endpoints sends the statements one with a single endpoint does. The outbox's rows are
 * due an hour later here (the schedule's first delay), so that none is taken within a counted request.
 */
describe('statements of a create, whatever the number of subscribed endpoints', () => {
  const suite = apiSuite({ env: { WEBHOOK_RETRY_SCHEDULE: '3600', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });

  const subscribe = (ws: typeof suite.ws, count: number) =>
    suite.t.app.get(Transactions).run(async () => {
      for (let index = 0; index < count; index += 1) {
        await suite.t.app.get(WebhooksRepository).insertEndpoint({
          id: `whk_test_${randomBytes(8).toString('hex')}`,
          workspaceId: ws.workspaceId,
          memberId: ws.memberId,
          apiKeyId: ws.apiKeyId,
          url: 'http://127.0.0.1:9/never-called',
          eventTypes: ['*'],
          description: null,
          secret: `whsec_${randomBytes(24).toString('base64')}`,
        });
      }
    });

  it('sends the same statements with 10 endpoints as with 1, the events and their one row of the outbox in the create', async () => {
    await subscribe(suite.ws, 1);
    await subscribe(suite.other, 10);
    const create = (ws: typeof suite.ws) => () =>
      suite.t.http
        .post('/v1/notes')
        .set(v1Headers(ws.key))
        .send({ fields: { $title: 'Fanned out' } });
    // Once each first: the statements are then the ones a create sends each time (prepared once per connection).
    await create(suite.ws)();
    await create(suite.other)();
    const one = await countQueries(create(suite.ws));
    const ten = await countQueries(create(suite.other));
    expect([one.result.status, ten.result.status]).toEqual([200, 200]);
    expect(ten.queries).toEqual(one.queries);
    expect(one.queries.filter((query) => query.includes('webhook_outbox'))).toHaveLength(1);
    expect(one.queries.filter((query) => query.includes('add_job'))).toEqual([]);
    // One row of the outbox per create, with 1 endpoint as with 10 (two creates each), no job, and no attempt yet:
    // the workers make them from the rows.
    const [{ outbox, jobs, attempts }]: { outbox: number; jobs: number; attempts: number }[] = await suite.t.app
      .get(DataSource)
      .query(
        `SELECT (SELECT count(*)::int FROM webhook_outbox WHERE workspace_id = ANY($1)) AS outbox,
                (SELECT count(*)::int FROM graphile_worker._private_jobs WHERE payload->>'workspaceId' = ANY($1)) AS jobs,
                (SELECT count(*)::int FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id WHERE w.workspace_id = ANY($1)) AS attempts`,
        [[suite.ws.workspaceId, suite.other.workspaceId]],
      );
    expect({ outbox, jobs, attempts }).toEqual({ outbox: 4, jobs: 0, attempts: 0 });
  });
});

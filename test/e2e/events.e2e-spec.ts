import { isDeepStrictEqual } from 'node:util';
import type { Response } from 'supertest';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SCOPES } from '../../src/common/auth/scopes';
import { EventPruner } from '../../src/modules/events/event-pruner';
import { FileSweeper } from '../../src/modules/files/file-sweeper';
import { FilesRepository } from '../../src/modules/files/files.repository';
import { Transactions } from '../../src/database/transactions';
import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createKey, createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { Entity, RecordsApi } from '../support/records';
import { adminHeaders, testDatabaseUrl, v1Headers } from '../support/test-app';
import { uploadFile } from '../support/transcripts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RETENTION_DAYS = 20;
const past = (hoursAgo: number) => new Date(Date.now() - hoursAgo * HOUR).toISOString();
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface FeedEvent {
  id: string;
  object: 'event';
  type: string;
  occurredAt: string;
  entityType: string;
  entityId: string;
  // The entity: an envelope, a meeting, a list or a file (checked against the document, then compared as read).
  data: any;
  changes?: { fields: string[]; relationships: string[] };
  memberId?: string;
}

interface FeedPage {
  object: 'list';
  data: FeedEvent[];
  nextCursor: string;
}

/** `type entityId` of each event, in feed order. */
const summary = (events: FeedEvent[]) => events.map((event) => `${event.type} ${event.entityId}`);
/** The same, sorted: for the events of one request, whose order among themselves the contract leaves open. */
const sortedSummary = (events: FeedEvent[]) => summary(events).sort();
/** The one event of `type` about `entityId`; fails when there is not exactly one. */
function only(events: FeedEvent[], type: string, entityId: string): FeedEvent {
  const found = events.filter((event) => event.type === type && event.entityId === entityId);
  expect({ type, entityId, count: found.length }).toEqual({ type, entityId, count: 1 });
  return found[0];
}
const sortedChanges = (event: FeedEvent) =>
  event.changes && { fields: [...event.changes.fields].sort(), relationships: [...event.changes.relationships].sort() };

/** A cursor of our own format (feed-cursor.ts): base64url of [workspaceId, after, types, limit, readAt]. */
const craftCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('the change feed, GET /v1/events', () => {
  // Retention shorter than the default 30 days of the apps other suites start on the same database:
  // the events this suite ages past it are pruned by this app only, when the test says so.
  const suite = apiSuite({ env: { FILE_SWEEP_INTERVAL_SECONDS: '0', EVENT_RETENTION_DAYS: String(RETENTION_DAYS) } });
  const { post, get } = suite;
  let api: RecordsApi;
  let dataSource: DataSource;

  /** GET /v1/events with `query` (from `?`), checked against the OpenAPI document. */
  async function feedRaw(query: string, key = suite.ws.key): Promise<Response> {
    const response = await get(`/v1/events${query}`, key);
    suite.openapi.assert(response);
    return response;
  }

  /** A 200 page, every event checked against the members the contract gives each type. */
  async function page(query: string, key = suite.ws.key): Promise<FeedPage> {
    const response = await feedRaw(query, key);
    expect({ query, status: response.status, body: response.status === 200 ? undefined : response.body }).toEqual({
      query,
      status: 200,
      body: undefined,
    });
    const body = response.body as FeedPage;
    // The page splices its events' stored JSON in as it is: its bytes are still exactly the JSON.stringify of what it says.
    expect(response.text).toBe(JSON.stringify(body));
    expect(Object.keys(body).sort()).toEqual(['data', 'nextCursor', 'object']);
    expect(body.object).toBe('list');
    expect(typeof body.nextCursor).toBe('string');
    for (const event of body.data) {
      const expected = ['data', 'entityId', 'entityType', 'id', 'object', 'occurredAt', 'type'];
      if (event.type.endsWith('.updated')) expected.push('changes');
      if (event.type === 'list.member_added' || event.type === 'list.member_removed') expected.push('memberId');
      expect({ type: event.type, members: Object.keys(event).sort() }).toEqual({
        type: event.type,
        members: expected.sort(),
      });
      expect(event.id).toMatch(/^evt_[0-9A-Z]{26}$/);
      expect(event.object).toBe('event');
      expect(event.occurredAt).toMatch(ISO_MS);
      expect(new Date(event.occurredAt).toISOString()).toBe(event.occurredAt);
      expect(event.type.startsWith(`${event.entityType}.`)).toBe(true);
      expect(event.data.id).toBe(event.entityId);
    }
    return body;
  }

  /**
   * Every event after `cursor` (from the feed's start without one; `query` for the first page),
   * following nextCursor until a page comes back empty; and the cursor to go on from.
   */
  async function follow(
    key: string,
    start: { cursor?: string; query?: string } = {},
  ): Promise<{ events: FeedEvent[]; cursor: string; pages: number }> {
    let query = start.cursor !== undefined ? `?cursor=${start.cursor}` : (start.query ?? '?limit=100');
    const events: FeedEvent[] = [];
    for (let pages = 1; ; pages += 1) {
      const body = await page(query, key);
      if (body.data.length === 0) return { events, cursor: body.nextCursor, pages };
      events.push(...body.data);
      query = `?cursor=${body.nextCursor}`;
    }
  }

  /** Where each key's feed ends now (a limit=100 cursor), kept between tests so that each reads only what is new. */
  const ends = new Map<string, string>();
  async function end(key = suite.ws.key): Promise<string> {
    const { cursor } = await follow(key, { cursor: ends.get(key) });
    ends.set(key, cursor);
    return cursor;
  }

  /** The events `action` made, as `key` reads them, read as soon as it returned. */
  async function changesOf(action: () => Promise<unknown>, key = suite.ws.key): Promise<FeedEvent[]> {
    const mark = await end(key);
    await action();
    const { events, cursor } = await follow(key, { cursor: mark });
    ends.set(key, cursor);
    return events;
  }

  const ok = (response: Response, what = ''): Response => {
    expect({ what, status: response.status, body: response.status === 200 ? undefined : response.body }).toEqual({
      what,
      status: 200,
      body: undefined,
    });
    suite.openapi.assert(response);
    return response;
  };
  const meetingBody = (fields: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    fields: { $title: 'Weekly', $startDate: past(3), $endDate: past(2), ...fields },
    ...extra,
  });
  const createFile = async (key = suite.ws.key) =>
    ok(await post('/v1/files', { filename: 'notes.txt', mimeType: 'text/plain', sizeBytes: 3 }, key), 'create file')
      .body as {
      id: string;
      uploadUrl: string;
      uploadHeaders: Record<string, string>;
    };

  beforeAll(async () => {
    api = new RecordsApi(suite.t, suite.openapi, suite.ws.key, suite.ws.workspaceId);
    dataSource = suite.t.app.get(DataSource);
    const project = await suite.t.http
      .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types`)
      .set(adminHeaders())
      .send({
        slug: 'project',
        label: 'Project',
        fields: {
          title: { label: 'Title', valueType: 'TEXT', required: true },
          budget: { label: 'Budget', valueType: 'NUMBER' },
        },
        relationships: {
          client: { label: 'Client', cardinality: 'HAS_ONE', objectType: 'account', inverseKey: 'projects' },
          sponsors: {
            label: 'Sponsors',
            cardinality: 'HAS_MANY',
            objectType: 'account',
            inverseKey: 'sponsoredProjects',
          },
          parent: { label: 'Parent', cardinality: 'HAS_ONE', objectType: 'project', inverseKey: 'children' },
        },
      });
    expect(project.status).toBe(200);
    await api.addField('account', { key: 'taxId', label: 'Tax id', valueType: 'TEXT', unique: true });
  });

  describe('an event for each change', () => {
    const RECORDS: {
      type: 'note' | 'task' | 'account' | 'contact';
      create: () => Record<string, unknown>;
      update: Record<string, unknown>;
      changed: string[];
    }[] = [
      {
        type: 'note',
        create: () => ({ fields: { $title: 'Minutes' } }),
        update: { fields: { $title: 'Minutes', $content: 'We met' } },
        changed: ['$content'],
      },
      {
        type: 'task',
        create: () => ({
          fields: { $title: 'Call', $status: 'TODO' },
          relationships: { $assignedTo: suite.ws.memberId },
        }),
        update: { fields: { $status: 'IN_PROGRESS', $dueAt: '2030-01-02T03:04:05Z', $title: 'Call' } },
        changed: ['$dueAt', '$status'],
      },
      {
        type: 'account',
        create: () => ({ fields: { $name: 'Acme', $headcount: '1-10' } }),
        update: { fields: { $name: 'Acme', $headcount: '11-50', $website: ['https://acme.example'] } },
        changed: ['$headcount', '$website'],
      },
      {
        type: 'contact',
        create: () => ({ fields: { $name: { firstName: 'Ada' }, $phone: ['+14155550100'] } }),
        update: { fields: { $name: null, $email: ['ada@example.com'], $phone: ['+1 (415) 555-0100'] } },
        changed: ['$email', '$name'],
      },
    ];

    it.each(RECORDS)(
      '$type: the created and updated events hold the create and update responses; changes names what changed',
      async ({ type, create, update, changed }) => {
        let created!: Entity;
        let updated!: Entity;
        const before = Date.now();
        const events = await changesOf(async () => {
          created = await api.create(type, create());
          updated = await api.update(type, created.id, update);
        });
        const after = Date.now();
        expect(summary(events)).toEqual([`${type}.created ${created.id}`, `${type}.updated ${created.id}`]);
        expect(events[0]).toMatchObject({ entityType: type, entityId: created.id });
        expect(events[0].data).toEqual(created);
        expect(events[1].data).toEqual(updated);
        expect(updated.updatedAt).not.toBeNull();
        expect(sortedChanges(events[1])).toEqual({ fields: changed, relationships: [] });
        for (const event of events) {
          expect(Date.parse(event.occurredAt)).toBeGreaterThanOrEqual(before);
          expect(Date.parse(event.occurredAt)).toBeLessThanOrEqual(after);
        }
        expect(Date.parse(events[0].occurredAt)).toBeLessThanOrEqual(Date.parse(events[1].occurredAt));
        expect(events[0].id).not.toBe(events[1].id);
      },
    );

    it('opportunity.created and opportunity.updated, and the account it links changes too', async () => {
      const account = await api.account('Opportunity holder');
      let created!: Entity;
      let updated!: Entity;
      const events = await changesOf(async () => {
        created = await api.opportunity(account.id, 'Deal');
        updated = await api.update('opportunity', created.id, { fields: { $stage: 'WON', $amount: 1250.5 } });
      });
      expect(sortedSummary(events)).toEqual(
        [
          `opportunity.created ${created.id}`,
          `account.updated ${account.id}`,
          `opportunity.updated ${created.id}`,
        ].sort(),
      );
      expect(only(events, 'opportunity.created', created.id).data).toEqual(created);
      const opportunityUpdated = only(events, 'opportunity.updated', created.id);
      expect(opportunityUpdated.data).toEqual(updated);
      expect(sortedChanges(opportunityUpdated)).toEqual({ fields: ['$amount', '$stage'], relationships: [] });
      const accountUpdated = only(events, 'account.updated', account.id);
      expect(accountUpdated.changes).toEqual({ fields: [], relationships: ['$opportunity'] });
      const accountNow = await api.retrieve('account', account.id);
      expect(accountNow.relationships.$opportunity.values).toEqual([created.id]);
      expect(accountUpdated.data.updatedAt).toBe(accountNow.updatedAt);
      expect(accountUpdated.data.fields).toEqual(accountNow.fields);
      // Its relationships: see the DEFECT test below.
    });

    it('<custom type>.created and .updated for custom records, with objects:read', async () => {
      let created!: Entity;
      let updated!: Entity;
      const events = await changesOf(async () => {
        created = ok(await post('/v1/objects/project/values', { fields: { title: 'Apollo' } })).body;
        updated = ok(
          await post(`/v1/objects/project/values/${created.id}`, { fields: { budget: 12.5, title: 'Apollo' } }),
        ).body;
      });
      expect(summary(events)).toEqual([`project.created ${created.id}`, `project.updated ${created.id}`]);
      expect(events[0]).toMatchObject({ entityType: 'project', data: created });
      expect(events[1]).toMatchObject({
        entityType: 'project',
        data: updated,
        changes: { fields: ['budget'], relationships: [] },
      });
      expect(events[0].data).toEqual(created);
      expect(events[1].data).toEqual(updated);
    });

    it('an entity changed twice in one request has one event whose changes are both’s', async () => {
      const account = await api.account('Client and sponsor');
      const project = ok(await post('/v1/objects/project/values', { fields: { title: 'Twice' } })).body;
      let updated!: Entity;
      const events = await changesOf(async () => {
        updated = ok(
          await post(`/v1/objects/project/values/${project.id}`, {
            fields: { budget: 3 },
            relationships: {
              client: { replace: account.id },
              sponsors: { add: account.id },
              parent: { replace: project.id },
            },
          }),
        ).body;
      });
      // The account through both relationships, the project through its own and (its own parent) its children.
      expect(sortedSummary(events)).toEqual([`project.updated ${project.id}`, `account.updated ${account.id}`].sort());
      const projectEvent = only(events, 'project.updated', project.id);
      expect(sortedChanges(projectEvent)).toEqual({
        fields: ['budget'],
        relationships: ['children', 'client', 'parent', 'sponsors'],
      });
      expect(projectEvent.data).toEqual(updated);
      expect(updated.relationships.children.values).toEqual([project.id]);
      expect(sortedChanges(only(events, 'account.updated', account.id))).toEqual({
        fields: [],
        relationships: ['projects', 'sponsoredProjects'],
      });
    });

    it('an update of the externalId alone is an update whose changes name no field', async () => {
      const note = await api.create('note', { fields: { $title: 'External' } });
      let updated!: Entity;
      const events = await changesOf(async () => {
        updated = await api.update('note', note.id, { externalId: 'ext-1' });
        expect(await api.update('note', note.id, { externalId: 'ext-1' })).toEqual(updated);
      });
      expect(summary(events)).toEqual([`note.updated ${note.id}`]);
      expect(events[0].data).toEqual(updated);
      expect(events[0].data.externalId).toBe('ext-1');
      expect(events[0].changes).toEqual({ fields: [], relationships: [] });
    });

    it('meeting.created and meeting.updated hold the meeting as the reader sees it', async () => {
      const file = await uploadFile(suite.t.http, suite.ws.key);
      let created!: Response;
      let updated!: Response;
      const events = await changesOf(async () => {
        created = ok(
          await post('/v1/meetings', meetingBody({ $description: 'Agenda' }, { relationships: { $transcript: file } })),
        );
        updated = ok(await post(`/v1/meetings/${created.body.id}`, { fields: { $privacySetting: 'METADATA' } }));
      });
      const id = created.body.id;
      expect(summary(events)).toEqual([`meeting.created ${id}`, `meeting.updated ${id}`]);
      expect(events[0].data).toEqual(created.body);
      expect(events[0].data).toMatchObject({
        accessLevel: 'FULL',
        objectType: 'meeting',
        relationships: { $transcript: { values: [file] } },
      });
      expect(events[1].data).toEqual(updated.body);
      expect(events[1].data.fields.$privacySetting.value).toBe('METADATA');
      expect(events[1].changes).toEqual({ fields: ['$privacySetting'], relationships: [] });

      const replacement = await uploadFile(suite.t.http, suite.ws.key);
      let replaced!: Response;
      const transcriptEvents = await changesOf(async () => {
        replaced = ok(await post(`/v1/meetings/${id}`, { relationships: { $transcript: { replace: replacement } } }));
      });
      // A file is no record: the link changes the meeting only.
      expect(summary(transcriptEvents)).toEqual([`meeting.updated ${id}`]);
      expect(transcriptEvents[0].data).toEqual(replaced.body);
      expect(transcriptEvents[0].changes).toEqual({ fields: [], relationships: ['$transcript'] });
    });

    it('list.created, then list.member_added for each member given on create, all holding the list', async () => {
      const [a, b] = [await api.account('Member A'), await api.account('Member B')];
      let created!: Response;
      const events = await changesOf(async () => {
        created = ok(
          await post('/v1/lists', {
            fields: { $name: 'Targets', $objectType: 'account' },
            relationships: { $accounts: [a.id, b.id, a.id] },
          }),
        );
      });
      const list = created.body.id;
      expect(summary(events)).toEqual([
        `list.created ${list}`,
        `list.member_added ${list}`,
        `list.member_added ${list}`,
      ]);
      expect(events.map((event) => event.memberId)).toEqual([undefined, a.id, b.id]);
      for (const event of events) {
        expect(event.entityType).toBe('list');
        expect(event.data).toEqual(created.body);
      }
    });

    it('list.updated on a rename only, list.member_removed and list.member_added one per member that left or joined', async () => {
      const [a, b, c, d] = [
        await api.account('A'),
        await api.account('B'),
        await api.account('C'),
        await api.account('D'),
      ];
      const list = ok(
        await post('/v1/lists', {
          fields: { $name: 'Before', $objectType: 'account' },
          relationships: { $accounts: [a.id, b.id] },
        }),
      ).body.id;

      let renamed!: Response;
      const renameEvents = await changesOf(async () => {
        renamed = ok(
          await post(`/v1/lists/${list}`, {
            fields: { $name: 'After' },
            relationships: { $accounts: { add: [c.id, d.id, a.id], remove: [b.id, d.id] } },
          }),
        );
      });
      // d is removed (it was no member: nothing), then added; a is a member already.
      expect(sortedSummary(renameEvents)).toEqual(
        [
          `list.updated ${list}`,
          `list.member_removed ${list}`,
          `list.member_added ${list}`,
          `list.member_added ${list}`,
        ].sort(),
      );
      expect(only(renameEvents, 'list.updated', list).changes).toEqual({ fields: ['$name'], relationships: [] });
      expect(
        renameEvents.filter((event) => event.type === 'list.member_removed').map((event) => event.memberId),
      ).toEqual([b.id]);
      expect(
        renameEvents
          .filter((event) => event.type === 'list.member_added')
          .map((event) => event.memberId)
          .sort(),
      ).toEqual([c.id, d.id].sort());
      for (const event of renameEvents) expect(event.data).toEqual(renamed.body);
      expect(renamed.body.fields.$name.value).toBe('After');

      let membersOnly!: Response;
      const memberEvents = await changesOf(async () => {
        membersOnly = ok(
          await post(`/v1/lists/${list}`, {
            fields: { $name: 'After' },
            relationships: { $accounts: { remove: a.id } },
          }),
        );
      });
      expect(summary(memberEvents)).toEqual([`list.member_removed ${list}`]);
      expect(memberEvents[0]).toMatchObject({ memberId: a.id, data: membersOnly.body });

      const nothing = await changesOf(async () => {
        ok(
          await post(`/v1/lists/${list}`, {
            fields: { $name: 'After' },
            relationships: { $accounts: { add: c.id, remove: b.id } },
          }),
        );
        ok(await post(`/v1/lists/${list}`, {}));
      });
      expect(summary(nothing)).toEqual([]);
    });

    it('file.completed and file.cancelled hold the response; creating and uploading record nothing', async () => {
      let completed!: Response;
      let cancelled!: Response;
      let uploaded!: string;
      let pending!: { id: string };
      const events = await changesOf(async () => {
        uploaded = await uploadFile(suite.t.http, suite.ws.key, { complete: false });
        pending = await createFile();
        completed = ok(await post(`/v1/files/${uploaded}/complete`, {}));
        cancelled = ok(await post(`/v1/files/${pending.id}/cancel`, {}));
      });
      expect(summary(events)).toEqual([`file.completed ${uploaded}`, `file.cancelled ${pending.id}`]);
      expect(events[0]).toMatchObject({ entityType: 'file' });
      expect(events[0].data).toEqual(completed.body);
      expect(events[0].data.status).toBe('COMPLETED');
      expect(events[1].data).toEqual(cancelled.body);
      expect(events[1].data.status).toBe('CANCELLED');
    });

    it('file.expired is recorded by the file sweep once the deadline passed, once', async () => {
      const file = await createFile();
      const sweeper = suite.t.app.get(FileSweeper);
      // The sweep claims every workspace's dead uploads: keep it off those of suites running beside this one.
      const noBytes = jest.spyOn(suite.t.app.get(FilesRepository), 'claimSweepable').mockResolvedValue([]);
      try {
        expect(summary(await changesOf(() => sweeper.sweep()))).toEqual([]);
        await dataSource.query(`UPDATE files SET expires_at = now() - interval '1 second' WHERE id = $1`, [file.id]);
        const events = await changesOf(() => sweeper.sweep());
        expect(summary(events)).toEqual([`file.expired ${file.id}`]);
        const read = ok(await get(`/v1/files/${file.id}`));
        expect(read.body.status).toBe('EXPIRED');
        expect(events[0].data).toEqual(read.body);
        expect(summary(await changesOf(() => sweeper.sweep()))).toEqual([]);
      } finally {
        noBytes.mockRestore();
      }
    });

    it('a complete whose statement began before the deadline commits nothing once the sweep recorded the expiry: never file.expired and file.completed', async () => {
      const file = await createFile();
      const put = await suite.t.http
        .put(new URL(file.uploadUrl).pathname + new URL(file.uploadUrl).search)
        .set(file.uploadHeaders)
        .send('abc');
      expect(put.status).toBe(200);
      const gate = 0x6576_0000 + (process.pid % 0xffff); // an advisory lock key of this test's own
      const trigger = `events_test_gate_${process.pid}`;
      const files = suite.t.app.get(FilesRepository);
      const transactions = suite.t.app.get(Transactions);
      const markCompleted = files.markCompleted.bind(files);
      // The complete's UPDATE waits, once its statement has begun, for the gate: a statement-level
      // trigger that waits only in the transaction that asked for it (set_config, below).
      await dataSource.query(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF current_setting('${trigger}.on', true) = 'on' THEN PERFORM pg_advisory_xact_lock_shared(${gate}); END IF;
          RETURN NULL;
        END $$`);
      await dataSource.query(
        `CREATE TRIGGER ${trigger} BEFORE UPDATE ON files FOR EACH STATEMENT EXECUTE FUNCTION ${trigger}()`,
      );
      const gated = jest.spyOn(files, 'markCompleted').mockImplementation(async (...args) => {
        await transactions.query(`SELECT set_config('${trigger}.on', 'on', true)`);
        return markCompleted(...args);
      });
      const noBytes = jest.spyOn(files, 'claimSweepable').mockResolvedValue([]);
      // The gate is a session lock: its holder needs a session of its own, never a transaction pooler's.
      const holder = new Client({ connectionString: process.env.TEST_DATABASE_DIRECT_URL ?? testDatabaseUrl() });
      try {
        await holder.connect();
        await holder.query(`SELECT pg_advisory_lock(${gate})`);
        const events = await changesOf(async () => {
          const completing = post(`/v1/files/${file.id}/complete`, {}).then((response) => response);
          // The complete's statement waits at the gate, begun before the deadline…
          for (let tries = 0; ; tries += 1) {
            const [{ waiting }] = await dataSource.query(
              `SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`,
              [gate],
            );
            if (waiting === 1) break;
            expect(tries).toBeLessThan(500);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          // …which then passes (the statement's clock stays where it began), and the sweep records the expiry.
          await dataSource.query(`UPDATE files SET expires_at = clock_timestamp() WHERE id = $1`, [file.id]);
          await suite.t.app.get(FileSweeper).sweep();
          await holder.query(`SELECT pg_advisory_unlock(${gate})`);
          expectError(await completing, 409, 'invalid_state');
        });
        expect(summary(events)).toEqual([`file.expired ${file.id}`]);
        expect(ok(await get(`/v1/files/${file.id}`)).body.status).toBe('EXPIRED');
      } finally {
        await holder.end();
        gated.mockRestore();
        noBytes.mockRestore();
        await dataSource.query(`DROP TRIGGER ${trigger} ON files`);
        await dataSource.query(`DROP FUNCTION ${trigger}()`);
      }
    });
  });

  describe('the other end of a link changes too', () => {
    it('account $contact add: the account, the contact (its $account) and the account the contact left', async () => {
      const [a1, a2] = [await api.account('Old home'), await api.account('New home')];
      const contact = await api.contact('Mover', { relationships: { $account: a1.id } });
      expect(contact.updatedAt).toBeNull();
      let updated!: Entity;
      const before = Date.now();
      const events = await changesOf(async () => {
        updated = await api.update('account', a2.id, { relationships: { $contact: { add: contact.id } } });
      });
      expect(sortedSummary(events)).toEqual(
        [`account.updated ${a2.id}`, `contact.updated ${contact.id}`, `account.updated ${a1.id}`].sort(),
      );
      const a2Event = only(events, 'account.updated', a2.id);
      expect(a2Event.data).toEqual(updated);
      expect(a2Event.changes).toEqual({ fields: [], relationships: ['$contact'] });
      const contactEvent = only(events, 'contact.updated', contact.id);
      expect(contactEvent.changes).toEqual({ fields: [], relationships: ['$account'] });
      const contactNow = await api.retrieve('contact', contact.id);
      expect(contactNow.relationships.$account.values).toEqual([a2.id]);
      expect(contactNow.updatedAt).not.toBeNull();
      expect(Date.parse(contactNow.updatedAt!)).toBeGreaterThanOrEqual(before);
      expect(contactEvent.data.updatedAt).toBe(contactNow.updatedAt);
      const a1Event = only(events, 'account.updated', a1.id);
      expect(a1Event.changes).toEqual({ fields: [], relationships: ['$contact'] });
      const a1Now = await api.retrieve('account', a1.id);
      expect(a1Now.relationships.$contact.values).toEqual([]);
      expect(a1Event.data.updatedAt).toBe(a1Now.updatedAt);
      expect(Date.parse(a1Now.updatedAt!)).toBeGreaterThanOrEqual(before);
    });

    it('a note linking an account moves the account’s updatedAt and records account.updated', async () => {
      const account = await api.account('Noted account');
      let note!: Entity;
      const before = Date.now();
      const events = await changesOf(async () => {
        note = await api.create('note', { fields: { $title: 'About Acme' }, relationships: { $account: account.id } });
      });
      expect(sortedSummary(events)).toEqual([`note.created ${note.id}`, `account.updated ${account.id}`].sort());
      expect(only(events, 'note.created', note.id).data).toEqual(note);
      const accountEvent = only(events, 'account.updated', account.id);
      expect(accountEvent.changes).toEqual({ fields: [], relationships: ['$note'] });
      const now = await api.retrieve('account', account.id);
      expect(now.relationships.$note.values).toEqual([note.id]);
      expect(now.updatedAt).not.toBeNull();
      expect(Date.parse(now.updatedAt!)).toBeGreaterThanOrEqual(before);
      expect(accountEvent.data.updatedAt).toBe(now.updatedAt);

      // Unlinking it from the note's end changes the account again.
      const unlinked = await changesOf(() =>
        api.update('note', note.id, { relationships: { $account: { remove: account.id } } }),
      );
      expect(sortedSummary(unlinked)).toEqual([`note.updated ${note.id}`, `account.updated ${account.id}`].sort());
      expect(only(unlinked, 'note.updated', note.id).changes).toEqual({ fields: [], relationships: ['$account'] });
      expect(only(unlinked, 'account.updated', account.id).changes).toEqual({ fields: [], relationships: ['$note'] });
      expect((await api.retrieve('account', account.id)).relationships.$note.values).toEqual([]);
    });

    it('moving a contact from A1 to A2 by its $account: events for the contact, A1 (lost it) and A2', async () => {
      const [a1, a2] = [await api.account('A1'), await api.account('A2')];
      const contact = await api.contact('Moved', { relationships: { $account: a1.id } });
      let updated!: Entity;
      const events = await changesOf(async () => {
        updated = await api.update('contact', contact.id, { relationships: { $account: { replace: a2.id } } });
      });
      expect(sortedSummary(events)).toEqual(
        [`contact.updated ${contact.id}`, `account.updated ${a1.id}`, `account.updated ${a2.id}`].sort(),
      );
      expect(only(events, 'contact.updated', contact.id)).toMatchObject({
        data: updated,
        changes: { fields: [], relationships: ['$account'] },
      });
      expect(only(events, 'contact.updated', contact.id).data).toEqual(updated);
      for (const account of [a1, a2]) {
        const event = only(events, 'account.updated', account.id);
        expect(event.changes).toEqual({ fields: [], relationships: ['$contact'] });
        const now = await api.retrieve('account', account.id);
        expect(event.data.updatedAt).toBe(now.updatedAt);
      }
      expect((await api.retrieve('account', a1.id)).relationships.$contact.values).toEqual([]);
      expect((await api.retrieve('account', a2.id)).relationships.$contact.values).toEqual([contact.id]);
    });

    it('a custom relationship changes its target through the inverse key', async () => {
      const account = await api.account('Client');
      let project!: Entity;
      const events = await changesOf(async () => {
        project = ok(
          await post('/v1/objects/project/values', {
            fields: { title: 'Gemini' },
            relationships: { client: account.id },
          }),
        ).body;
      });
      expect(sortedSummary(events)).toEqual([`project.created ${project.id}`, `account.updated ${account.id}`].sort());
      expect(only(events, 'project.created', project.id).data).toEqual(project);
      expect(only(events, 'account.updated', account.id).changes).toEqual({ fields: [], relationships: ['projects'] });
    });

    it('meeting autoCreateRecords: contact.created and ONE account.created per new domain, its data already showing the contacts', async () => {
      const domain = `newco-${Date.now()}.example`;
      const emails = [`ann@${domain}`, `bob@${domain}`];
      let meeting!: Response;
      const events = await changesOf(async () => {
        meeting = ok(await post('/v1/meetings', meetingBody({ $attendeeEmails: emails }, { autoCreateRecords: true })));
      });
      const contacts = meeting.body.relationships.$contact.values as string[];
      const accounts = meeting.body.relationships.$account.values as string[];
      expect(contacts).toHaveLength(2);
      expect(accounts).toHaveLength(1);
      expect(sortedSummary(events)).toEqual(
        [
          `meeting.created ${meeting.body.id}`,
          `account.created ${accounts[0]}`,
          ...contacts.map((id) => `contact.created ${id}`),
        ].sort(),
      );
      expect(only(events, 'meeting.created', meeting.body.id).data).toEqual(meeting.body);
      const account = only(events, 'account.created', accounts[0]);
      expect([...account.data.relationships.$contact.values].sort()).toEqual([...contacts].sort());
      expect(account.data.updatedAt).toBeNull();
      for (const id of contacts) {
        const created = only(events, 'contact.created', id);
        expect(created.data.relationships.$account.values).toEqual(accounts);
        expect(created.data.updatedAt).toBeNull();
      }
    });

    it('a meeting linking known attendees changes their contact, its account and the account’s opportunity', async () => {
      const email = `kim@known-${Date.now()}.example`;
      const account = await api.account('Known');
      const contact = await api.contact('Kim', {
        fields: { $email: [email] },
        relationships: { $account: account.id },
      });
      const deal = await api.opportunity(account.id, 'Known deal');
      let meeting!: Response;
      const before = Date.now();
      const events = await changesOf(async () => {
        meeting = ok(await post('/v1/meetings', meetingBody({ $organizerEmail: email })));
      });
      const id = meeting.body.id;
      expect(meeting.body.relationships).toMatchObject({
        $contact: { values: [contact.id] },
        $account: { values: [account.id] },
        $opportunity: { values: [deal.id] },
      });
      expect(sortedSummary(events)).toEqual(
        [
          `meeting.created ${id}`,
          `contact.updated ${contact.id}`,
          `account.updated ${account.id}`,
          `opportunity.updated ${deal.id}`,
        ].sort(),
      );
      expect(only(events, 'meeting.created', id).data).toEqual(meeting.body);
      for (const [type, record] of [
        ['contact', contact],
        ['account', account],
        ['opportunity', deal],
      ] as const) {
        const event = only(events, `${type}.updated`, record.id);
        expect(event.changes).toEqual({ fields: [], relationships: ['$meeting'] });
        const now = await api.retrieve(type, record.id);
        expect(now.relationships.$meeting.values).toEqual([id]);
        expect(Date.parse(now.updatedAt!)).toBeGreaterThanOrEqual(before);
        expect(event.data.updatedAt).toBe(now.updatedAt);
      }
    });

    it('DEFECT (records.service.ts): the other end’s event data is the record as it was before the link was made, not as a read returns it after the change', async () => {
      // Every record an event is about, against what a read returns right after: `case: type id`
      // of each whose event data differs.
      const stale: string[] = [];
      const check = async (
        name: string,
        events: FeedEvent[],
        type: 'account' | 'contact',
        id: string,
        action = 'updated',
      ) => {
        const event = only(events, `${type}.${action}`, id);
        const read = await api.retrieve(type, id);
        if (!isDeepStrictEqual(event.data, read)) {
          const differs = Object.keys(read.relationships).filter(
            (key) => !isDeepStrictEqual(event.data.relationships[key], read.relationships[key]),
          );
          stale.push(`${name}: ${type}.${action} lacks ${differs.join(', ')}`);
        }
      };

      const [a1, a2] = [await api.account('Data old home'), await api.account('Data new home')];
      const contact = await api.contact('Data mover', { relationships: { $account: a1.id } });
      const added = await changesOf(() =>
        api.update('account', a2.id, { relationships: { $contact: { add: contact.id } } }),
      );
      await check('account $contact add, the contact', added, 'contact', contact.id);
      await check('account $contact add, the account it left', added, 'account', a1.id);

      const a3 = await api.account('Data third home');
      const moved = await changesOf(() =>
        api.update('contact', contact.id, { relationships: { $account: { replace: a3.id } } }),
      );
      await check('contact $account replace, the account it joined', moved, 'account', a3.id);
      await check('contact $account replace, the account it left', moved, 'account', a2.id);

      const account = await api.account('Data noted');
      const noted = await changesOf(() =>
        api.create('note', { fields: { $title: 'On the account' }, relationships: { $account: account.id } }),
      );
      await check('note created with $account, the account', noted, 'account', account.id);
      const note = await api.create('note', { fields: { $title: 'Linked later' } });
      const linkedLater = await changesOf(() =>
        api.update('note', note.id, { relationships: { $account: { add: account.id } } }),
      );
      await check('note $account add, the account', linkedLater, 'account', account.id);
      const dealt = await changesOf(() => api.opportunity(account.id, 'Data deal'));
      await check('opportunity created, its account', dealt, 'account', account.id);
      const projected = await changesOf(async () =>
        ok(
          await post('/v1/objects/project/values', {
            fields: { title: 'Data' },
            relationships: { client: account.id },
          }),
        ),
      );
      await check('project created with client, the account', projected, 'account', account.id);

      const knownEmail = `kim@data-known-${Date.now()}.example`;
      const known = await api.contact('Data known', { fields: { $email: [knownEmail] } });
      const attended = await changesOf(async () =>
        ok(await post('/v1/meetings', meetingBody({ $attendeeEmails: [knownEmail] }))),
      );
      await check('meeting with a known attendee, the contact', attended, 'contact', known.id);

      let meeting!: Response;
      const met = await changesOf(async () => {
        meeting = ok(
          await post(
            '/v1/meetings',
            meetingBody({ $attendeeEmails: [`cy@data-${Date.now()}.example`] }, { autoCreateRecords: true }),
          ),
        );
      });
      await check(
        'meeting autoCreateRecords, the contact made',
        met,
        'contact',
        meeting.body.relationships.$contact.values[0],
        'created',
      );
      await check(
        'meeting autoCreateRecords, the account made',
        met,
        'account',
        meeting.body.relationships.$account.values[0],
        'created',
      );

      expect(stale).toEqual([]);
    });
  });

  describe('what records nothing', () => {
    it('an update with every value as stored (fields only): no event, updatedAt unchanged', async () => {
      const note = await api.create('note', { fields: { $title: 'Same', $content: 'Text' } });
      const edited = await api.update('note', note.id, { fields: { $content: 'Changed' } });
      const events = await changesOf(async () => {
        expect(await api.update('note', note.id, { fields: { $title: 'Same', $content: 'Changed' } })).toEqual(edited);
        expect(await api.update('note', note.id, {})).toEqual(edited);
        const contact = await api.contact('Same', { fields: { $email: ['same@example.com'] } });
        // Normalized to what is stored: still no change.
        expect(
          await api.update('contact', contact.id, { fields: { $email: ['SAME@Example.com'], $phone: null } }),
        ).toEqual(contact);
        expect(await api.retrieve('contact', contact.id)).toEqual(contact);
      });
      expect(events.map((event) => event.type)).toEqual(['contact.created']);
      expect(await api.retrieve('note', note.id)).toEqual(edited);
    });

    it('an update whose relationship operations change nothing (slow path): no event on either end, updatedAt unchanged', async () => {
      const [linked, other] = [await api.account('Linked'), await api.account('Not linked')];
      const note = await api.create('note', {
        fields: { $title: 'Linked note' },
        relationships: { $account: linked.id },
      });
      const [noteBefore, linkedBefore, otherBefore] = [
        note,
        await api.retrieve('account', linked.id),
        await api.retrieve('account', other.id),
      ];
      const contact = await api.contact('Stays', { relationships: { $account: linked.id } });
      const linkedWithContact = await api.retrieve('account', linked.id);
      const events = await changesOf(async () => {
        expect(
          await api.update('note', note.id, {
            fields: { $title: 'Linked note' },
            relationships: { $account: { add: linked.id, remove: other.id } },
          }),
        ).toEqual(noteBefore);
        expect(await api.update('account', linked.id, { relationships: { $contact: { add: contact.id } } })).toEqual(
          linkedWithContact,
        );
        expect(
          await api.update('contact', contact.id, { relationships: { $account: { replace: linked.id } } }),
        ).toEqual(await api.retrieve('contact', contact.id));
        // A unique field makes even a fields-only update take the slow path.
        const unique = await api.account('Unique', { fields: { taxId: 'TAX-1' } });
        expect(await api.update('account', unique.id, { fields: { taxId: 'TAX-1', $name: 'Unique' } })).toEqual(unique);
      });
      expect(events.map((event) => event.type)).toEqual(['account.created']);
      expect(await api.retrieve('note', note.id)).toEqual(noteBefore);
      expect((await api.retrieve('account', other.id)).updatedAt).toBe(otherBefore.updatedAt);
      expect(linkedBefore.relationships.$note.values).toEqual([note.id]);
    });

    it('an update of a meeting that changes nothing records nothing', async () => {
      const meeting = ok(await post('/v1/meetings', meetingBody({ $privacySetting: 'METADATA' }))).body;
      const events = await changesOf(async () => {
        expect(ok(await post(`/v1/meetings/${meeting.id}`, { fields: { $privacySetting: 'METADATA' } })).body).toEqual(
          meeting,
        );
        expect(ok(await post(`/v1/meetings/${meeting.id}`, {})).body).toEqual(meeting);
      });
      expect(summary(events)).toEqual([]);
    });

    it('a failed write records nothing, even one that failed after its record was written', async () => {
      const foreign = await api.as(suite.other.key, suite.other.workspaceId).account('Foreign');
      const foreignContact = await api.as(suite.other.key, suite.other.workspaceId).contact('Foreign');
      const taken = await api.account('Taken', { fields: { taxId: 'TAX-TAKEN' } });
      const contact = await api.contact('Linked elsewhere', { relationships: { $account: taken.id } });
      const completed = await uploadFile(suite.t.http, suite.ws.key);
      const pendingTranscript = await uploadFile(suite.t.http, suite.ws.key, { complete: false });
      const short = await createFile();
      expect(
        (
          await suite.t.http
            .put(new URL(short.uploadUrl).pathname + new URL(short.uploadUrl).search)
            .set(short.uploadHeaders)
            .send('ab')
        ).status,
      ).toBe(200);
      const future = new Date(Date.now() + HOUR).toISOString();
      const list = ok(await post('/v1/lists', { fields: { $name: 'Fails', $objectType: 'account' } })).body.id;
      const events = await changesOf(async () => {
        expectError(
          await api.createRaw('note', { fields: { $title: 'x' }, relationships: { $account: foreign.id } }),
          422,
          'relationship_entity_missing',
        );
        expectError(
          await api.createRaw('account', { fields: { $name: 'Dup', taxId: 'TAX-TAKEN' } }),
          409,
          'duplicate_value',
        );
        const dupTarget = await api.account('Second');
        expectError(
          await api.updateRaw('account', dupTarget.id, {
            fields: { taxId: 'TAX-TAKEN' },
            relationships: { $contact: { add: contact.id } },
          }),
          409,
          'duplicate_value',
        );
        expectError(
          await api.updateRaw('account', taken.id, { relationships: { $contact: { add: foreignContact.id } } }),
          422,
          'relationship_entity_missing',
        );
        // The meeting is written, then refused: its dates, or its transcript not COMPLETED.
        expectError(
          await post(
            '/v1/meetings',
            meetingBody(
              { $endDate: future, $attendeeEmails: ['new@failed-meeting.example'] },
              { autoCreateRecords: true },
            ),
          ),
          422,
          'invalid_value',
        );
        expectError(
          await post('/v1/meetings', meetingBody({}, { relationships: { $transcript: pendingTranscript } })),
          422,
          'invalid_value',
        );
        expectError(await post(`/v1/files/${completed}/complete`, {}), 409, 'invalid_state');
        expectError(await post(`/v1/files/${completed}/cancel`, {}), 409, 'invalid_state');
        expectError(await post(`/v1/files/${short.id}/complete`, {}), 422, 'size_mismatch');
        expectError(
          await post(`/v1/lists/${list}`, {
            fields: { $name: 'Renamed' },
            relationships: { $accounts: { add: foreign.id } },
          }),
          422,
          'relationship_entity_missing',
        );
      });
      expect(events.map((event) => event.type)).toEqual(['account.created']);
      expect((await api.retrieve('contact', contact.id)).relationships.$account.values).toEqual([taken.id]);
    });

    it('with an Idempotency-Key, a replay records nothing new', async () => {
      const keyed = (path: string, body: object, key: string) =>
        suite.t.http
          .post(path)
          .set({ ...v1Headers(suite.ws.key), 'Idempotency-Key': key })
          .send(body);
      const unique = `${process.pid}-${Date.now()}`;
      const account = await api.account('Keyed');
      const file = await uploadFile(suite.t.http, suite.ws.key, { complete: false });
      const requests: [string, object][] = [
        ['/v1/notes', { fields: { $title: 'Keyed' }, relationships: { $account: account.id } }],
        ['/v1/lists', { fields: { $name: 'Keyed', $objectType: 'account' }, relationships: { $accounts: account.id } }],
        [`/v1/files/${file}/complete`, {}],
      ];
      const firsts: Response[] = [];
      const first = await changesOf(async () => {
        for (const [index, [path, body]] of requests.entries())
          firsts.push(ok(await keyed(path, body, `events-${unique}-${index}`)));
      });
      const [note, list] = [firsts[0].body.id, firsts[1].body.id];
      expect(sortedSummary(first)).toEqual(
        [
          `note.created ${note}`,
          `account.updated ${account.id}`,
          `list.created ${list}`,
          `list.member_added ${list}`,
          `file.completed ${file}`,
        ].sort(),
      );
      expect(only(first, 'note.created', note).data).toEqual(firsts[0].body);
      expect(only(first, 'file.completed', file).data).toEqual(firsts[2].body);
      const replays = await changesOf(async () => {
        for (const [index, [path, body]] of requests.entries()) {
          const replay = ok(await keyed(path, body, `events-${unique}-${index}`));
          expect(replay.headers['idempotent-replayed']).toBe('true');
          expect(replay.body).toEqual(firsts[index].body);
        }
      });
      expect(summary(replays)).toEqual([]);
    });
  });

  describe('scopes and privacy', () => {
    const allBut = (...left: string[]) => SCOPES.filter((scope) => !left.includes(scope));

    it('a key without events:read is refused', async () => {
      const key = (await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, allBut('events:read'))).key;
      expectError(await feedRaw('', key), 403, 'insufficient_scope');
      expectError(await feedRaw('?types=note.created', key), 403, 'insufficient_scope');
    });

    it('a key without notes:read never sees note events, and may not ask for them', async () => {
      const key = (await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, allBut('notes:read'))).key;
      await end(key);
      let account!: Entity;
      let note!: Entity;
      const all = await changesOf(async () => {
        account = await api.account('Seen');
        note = await api.create('note', { fields: { $title: 'Unseen' }, relationships: { $account: account.id } });
        await api.update('note', note.id, { fields: { $content: 'Still unseen' } });
      });
      expect(sortedSummary(all)).toEqual(
        [
          `account.created ${account.id}`,
          `note.created ${note.id}`,
          `account.updated ${account.id}`,
          `note.updated ${note.id}`,
        ].sort(),
      );
      const { events, cursor } = await follow(key, { cursor: ends.get(key) });
      ends.set(key, cursor);
      // The account the note links changed: that change is the account's, which the key may read.
      expect(sortedSummary(events)).toEqual([`account.created ${account.id}`, `account.updated ${account.id}`].sort());
      const refused = await feedRaw('?types=note.created', key);
      expectError(refused, 403, 'insufficient_scope');
      expect(refused.body.error.message).toBe(
        'Reading note.created events requires the scope notes:read; missing: notes:read',
      );
      expectError(await feedRaw('?types=account.created,note.updated', key), 403, 'insufficient_scope');
      const accountsOnly = await page('?types=account.created', key);
      expect(accountsOnly.data.every((event) => event.type === 'account.created')).toBe(true);
      // A cursor is no signed token: one made to name note types still reads none of them.
      const crafted = craftCursor([suite.ws.workspaceId, '0', ['note.created', 'note.updated'], 100, Date.now()]);
      const { events: throughCrafted } = await follow(key, { cursor: crafted });
      expect(throughCrafted).toEqual([]);
      // The same cursor with a key that may read notes reads them: it is the scope that keeps them out.
      const notes = (await follow(suite.ws.key, { cursor: crafted })).events;
      expect(notes.every((event) => event.type === 'note.created' || event.type === 'note.updated')).toBe(true);
      expect(summary(notes)).toEqual(expect.arrayContaining([`note.created ${note.id}`, `note.updated ${note.id}`]));
    });

    it('each entity type needs its read scope; custom types need objects:read', async () => {
      const eventsOnly = (await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['events:read'])).key;
      const everything = await follow(suite.ws.key);
      const types = [...new Set(everything.events.map((event) => event.entityType))].sort();
      expect(types).toEqual([
        'account',
        'contact',
        'file',
        'list',
        'meeting',
        'note',
        'opportunity',
        'project',
        'task',
      ]);
      expect((await follow(eventsOnly)).events).toEqual([]);
      const scopeOf: Record<string, string> = {
        account: 'accounts:read',
        contact: 'contacts:read',
        file: 'files:read',
        list: 'lists:read',
        meeting: 'meetings:read',
        note: 'notes:read',
        opportunity: 'opportunities:read',
        project: 'objects:read',
        task: 'tasks:read',
      };
      const twoTypes = `${everything.events.find((event) => event.entityType === 'task')!.type},${everything.events.find((event) => event.entityType === 'list')!.type}`;
      const refusedBoth = await feedRaw(`?types=${twoTypes}`, eventsOnly);
      expectError(refusedBoth, 403, 'insufficient_scope');
      expect(refusedBoth.body.error.message).toMatch(
        /^Reading list\.\w+, task\.\w+ events requires the scopes lists:read and tasks:read; missing: lists:read, tasks:read$/,
      );
      for (const type of types) {
        const key = (
          await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['events:read', scopeOf[type]])
        ).key;
        const seen = await follow(key);
        expect({ type, seen: summary(seen.events) }).toEqual({
          type,
          seen: summary(everything.events.filter((event) => event.entityType === type)),
        });
        const eventType = everything.events.find((event) => event.entityType === type)!.type;
        const refused = await feedRaw(`?types=${eventType}`, eventsOnly);
        expectError(refused, 403, 'insufficient_scope');
        expect(refused.body.error.message).toBe(
          `Reading ${eventType} events requires the scope ${scopeOf[type]}; missing: ${scopeOf[type]}`,
        );
        expect((await page(`?types=${eventType}`, key)).data.every((event) => event.type === eventType)).toBe(true);
      }
    });

    it('a member without FULL access sees meeting events redacted, its hidden transcript left out, and FULL once the setting allows it', async () => {
      const member = await createMember(suite.t.http, suite.ws.workspaceId);
      const reader = (await createKey(suite.t.http, suite.ws.workspaceId, member.id, ['*'])).key;
      await end(reader);
      const creatorMark = await end();
      const file = await uploadFile(suite.t.http, suite.ws.key);
      const created = ok(
        await post(
          '/v1/meetings',
          meetingBody(
            { $privacySetting: 'METADATA', $description: 'secret agenda' },
            { relationships: { $transcript: file } },
          ),
        ),
      );
      const id = created.body.id;
      const mark = ends.get(reader)!;

      const redacted = await follow(reader, { cursor: mark });
      expect(summary(redacted.events)).toEqual([`meeting.created ${id}`]);
      const readerView = ok(await get(`/v1/meetings/${id}`, reader)).body;
      expect(readerView.accessLevel).toBe('METADATA');
      expect(redacted.events[0].data).toEqual(readerView);
      expect(redacted.events[0].data.fields.$description.value).toBeNull();
      expect(redacted.events[0].data.relationships).not.toHaveProperty('$transcript');
      // The creator reads the same events in full, the transcript's completion too.
      const creatorView = await follow(suite.ws.key, { cursor: creatorMark });
      expect(summary(creatorView.events)).toEqual([`file.completed ${file}`, `meeting.created ${id}`]);
      expect(creatorView.events[1].data).toEqual(created.body);
      expectError(
        await post(`/v1/meetings/${id}`, { fields: { $privacySetting: 'FULL' } }, reader),
        403,
        'not_permitted',
      );
      expect(summary((await follow(reader, { cursor: redacted.cursor })).events)).toEqual([]);

      const opened = ok(await post(`/v1/meetings/${id}`, { fields: { $privacySetting: 'FULL' } }));
      const full = await follow(reader, { cursor: mark });
      expect(summary(full.events)).toEqual([
        `file.completed ${file}`,
        `meeting.created ${id}`,
        `meeting.updated ${id}`,
      ]);
      expect(full.events[1].data).toEqual({ ...created.body, accessLevel: 'FULL' });
      expect(full.events[1].data.fields.$description.value).toBe('secret agenda');
      expect(full.events[2].data).toEqual(ok(await get(`/v1/meetings/${id}`, reader)).body);
      expect(full.events[2].data).toEqual(opened.body);
      ends.set(reader, full.cursor);
      await end();
    });

    it('a reader without FULL access is not told that the hidden transcript changed', async () => {
      const member = await createMember(suite.t.http, suite.ws.workspaceId);
      const reader = (await createKey(suite.t.http, suite.ws.workspaceId, member.id, ['*'])).key;
      const [first, second] = [
        await uploadFile(suite.t.http, suite.ws.key),
        await uploadFile(suite.t.http, suite.ws.key),
      ];
      const id = ok(
        await post(
          '/v1/meetings',
          meetingBody({ $privacySetting: 'METADATA' }, { relationships: { $transcript: first } }),
        ),
      ).body.id;
      await end(reader);
      const creatorEvents = await changesOf(() =>
        post(`/v1/meetings/${id}`, { relationships: { $transcript: { replace: second } } }),
      );
      expect(summary(creatorEvents)).toEqual([`meeting.updated ${id}`]);
      expect(creatorEvents[0].changes).toEqual({ fields: [], relationships: ['$transcript'] });
      const { events, cursor } = await follow(reader, { cursor: ends.get(reader) });
      ends.set(reader, cursor);
      // The update shows (its updatedAt moved), not what it changed: a relationship the reader cannot see.
      expect(summary(events)).toEqual([`meeting.updated ${id}`]);
      expect(events[0].data).toEqual(ok(await get(`/v1/meetings/${id}`, reader)).body);
      expect(events[0].data.accessLevel).toBe('METADATA');
      expect(events[0].changes).toEqual({ fields: [], relationships: [] });
    });

    it('a workspace never sees another’s events; another workspace’s cursor is refused', async () => {
      const otherApi = api.as(suite.other.key, suite.other.workspaceId);
      await end(suite.other.key);
      let ours!: Entity;
      let theirs!: Entity;
      const mine = await changesOf(async () => {
        ours = await api.account('Ours');
        theirs = await otherApi.account('Theirs');
      });
      expect(summary(mine)).toEqual([`account.created ${ours.id}`]);
      const other = await follow(suite.other.key, { cursor: ends.get(suite.other.key) });
      expect(summary(other.events)).toEqual([`account.created ${theirs.id}`]);
      const everythingOther = await follow(suite.other.key);
      expect(everythingOther.events.some((event) => event.entityId === ours.id)).toBe(false);
      const ourCursor = await end();
      expectError(await feedRaw(`?cursor=${other.cursor}`), 400, 'invalid_parameter', 'cursor');
      expectError(await feedRaw(`?cursor=${ourCursor}`, suite.other.key), 400, 'invalid_parameter', 'cursor');
    });
  });

  describe('cursors', () => {
    let fresh: TestWorkspace;
    let freshApi: RecordsApi;
    const positions = async (ids: string[]): Promise<number[]> => {
      const rows: { id: string; position: string }[] = await dataSource.query(
        `SELECT id, position::text FROM events WHERE id = ANY($1)`,
        [ids],
      );
      const byId = new Map(rows.map((row) => [row.id, Number(row.position)]));
      return ids.map((id) => byId.get(id)!);
    };

    beforeAll(async () => {
      fresh = await createWorkspace(suite.t.http);
      freshApi = api.as(fresh.key, fresh.workspaceId);
    });

    it('following nextCursor reads every event once, in order, then [] until new events are written', async () => {
      const notes: Entity[] = [];
      for (let index = 0; index < 5; index += 1)
        notes.push(await freshApi.create('note', { fields: { $title: `Note ${index}` } }));
      await freshApi.update('note', notes[0].id, { fields: { $content: 'Edited' } });
      const account = await freshApi.account('Paged');

      const whole = await page('?limit=100', fresh.key);
      expect(summary(whole.data)).toEqual([
        ...notes.map((note) => `note.created ${note.id}`),
        `note.updated ${notes[0].id}`,
        `account.created ${account.id}`,
      ]);
      const order = await positions(whole.data.map((event) => event.id));
      for (let index = 1; index < order.length; index += 1) expect(order[index]).toBeGreaterThan(order[index - 1]);
      // occurredAt never goes back along the feed either.
      for (let index = 1; index < whole.data.length; index += 1) {
        expect(Date.parse(whole.data[index].occurredAt)).toBeGreaterThanOrEqual(
          Date.parse(whole.data[index - 1].occurredAt),
        );
      }

      const pages: FeedEvent[][] = [];
      let cursor: string | undefined;
      for (;;) {
        const body = await page(cursor === undefined ? '?limit=3' : `?cursor=${cursor}`, fresh.key);
        cursor = body.nextCursor;
        if (body.data.length === 0) break;
        pages.push(body.data);
        expect(pages.length).toBeLessThan(10);
      }
      expect(pages.map((events) => events.length)).toEqual([3, 3, 1]);
      expect(pages.flat()).toEqual(whole.data);
      expect(new Set(pages.flat().map((event) => event.id)).size).toBe(7);
      // The end stays the end, then goes on with what is written next, once.
      expect((await page(`?cursor=${cursor}`, fresh.key)).data).toEqual([]);
      const later = await freshApi.create('note', { fields: { $title: 'Later' } });
      const next = await page(`?cursor=${cursor}`, fresh.key);
      expect(summary(next.data)).toEqual([`note.created ${later.id}`]);
      expect(next.data[0].data).toEqual(later);
      expect((await page(`?cursor=${next.nextCursor}`, fresh.key)).data).toEqual([]);
      // The default page is 25.
      for (let index = 0; index < 20; index += 1)
        await freshApi.create('note', { fields: { $title: `Bulk ${index}` } });
      expect((await page('', fresh.key)).data).toHaveLength(25);
      expect((await page('?limit=100', fresh.key)).data).toHaveLength(28);
    });

    it('a reader that may see few of the events gets full pages up to the end: what it may not see is left out before the limit', async () => {
      const writer = await createWorkspace(suite.t.http);
      const member = await createMember(suite.t.http, writer.workspaceId);
      const reader = (
        await createKey(suite.t.http, writer.workspaceId, member.id, ['notes:read', 'files:read', 'events:read'])
      ).key;
      const readable: string[] = [];
      for (let index = 0; index < 6; index += 1) {
        ok(
          await post(
            '/v1/tasks',
            { fields: { $title: `Task ${index}`, $status: 'TODO' }, relationships: { $assignedTo: writer.memberId } },
            writer.key,
          ),
        );
        // A private meeting's transcript: its file.completed is hidden from the reader (§9), the meeting unreadable.
        const transcript = await uploadFile(suite.t.http, writer.key);
        ok(
          await post(
            '/v1/meetings',
            meetingBody({ $privacySetting: 'METADATA' }, { relationships: { $transcript: transcript } }),
            writer.key,
          ),
        );
        const note = ok(await post('/v1/notes', { fields: { $title: `Note ${index}` } }, writer.key)).body;
        readable.push(`note.created ${note.id}`);
        if (index % 2 === 0) {
          const file = await uploadFile(suite.t.http, writer.key, {
            mimeType: 'text/plain',
            purpose: 'knowledge_user',
          });
          readable.push(`file.completed ${file}`);
        }
      }
      // As a client reads a feed: pages until one is shorter than its limit, which is the end.
      const pages: FeedEvent[][] = [];
      let query = '?limit=2';
      for (;;) {
        const body = await page(query, reader);
        pages.push(body.data);
        query = `?cursor=${body.nextCursor}`;
        if (body.data.length < 2) break;
        expect(pages.length).toBeLessThan(10);
      }
      expect(pages.map((events) => events.length)).toEqual([2, 2, 2, 2, 1]);
      expect(summary(pages.flat())).toEqual(readable);
      expect((await page(query, reader)).data).toEqual([]);
    });

    it('never skips or repeats an event while writes commit during the reads', async () => {
      const start = (await follow(fresh.key)).cursor;
      const seen: FeedEvent[] = [];
      let writing = true;
      const reader = (async () => {
        let cursor = start;
        for (;;) {
          const done = !writing;
          const body = await page(`?cursor=${cursor}`, fresh.key);
          seen.push(...body.data);
          cursor = body.nextCursor;
          if (done && body.data.length === 0) return;
        }
      })();
      const writes: Promise<unknown>[] = [];
      for (let batch = 0; batch < 4; batch += 1) {
        const made = Array.from({ length: 8 }, (_, index) =>
          index % 2 === 0
            ? freshApi.create('note', { fields: { $title: `Race ${batch}-${index}` } })
            : freshApi.account(`Race ${batch}-${index}`),
        );
        writes.push(...made);
        await Promise.all(made);
      }
      writing = false;
      await reader;
      expect(writes).toHaveLength(32);
      const all = (await follow(fresh.key, { cursor: start })).events;
      expect(all).toHaveLength(32);
      expect(seen.map((event) => event.id)).toEqual(all.map((event) => event.id));
      const order = await positions(seen.map((event) => event.id));
      for (let index = 1; index < order.length; index += 1) expect(order[index]).toBeGreaterThan(order[index - 1]);
    });

    it('types filters the events, and the cursor carries types and limit', async () => {
      const all = (await follow(fresh.key)).events;
      const notesCreated = all.filter((event) => event.type === 'note.created');
      const filtered = await follow(fresh.key, { query: '?types=note.updated,account.created' });
      expect(filtered.events).toEqual(
        all.filter((event) => event.type === 'note.updated' || event.type === 'account.created'),
      );
      expect(filtered.events.length).toBeGreaterThan(2);

      const first = await page('?types=note.created&limit=2', fresh.key);
      expect(first.data).toEqual(notesCreated.slice(0, 2));
      // The cursor alone goes on with the same types and limit.
      const second = await page(`?cursor=${first.nextCursor}`, fresh.key);
      expect(second.data).toEqual(notesCreated.slice(2, 4));
      // Given again beside it, they must be its own (types in any order, repeated or not).
      expect((await page(`?cursor=${first.nextCursor}&limit=2&types=note.created`, fresh.key)).data).toEqual(
        second.data,
      );
      const both = await page('?types=note.updated,account.created&limit=1', fresh.key);
      expect(
        (await page(`?cursor=${both.nextCursor}&types=account.created,note.updated,note.updated`, fresh.key)).data,
      ).toHaveLength(1);
      for (const beside of [
        'limit=3',
        'limit=25',
        'types=note.updated',
        'types=note.created,note.updated',
        'limit=2&types=account.created',
      ]) {
        expectError(
          await feedRaw(`?cursor=${first.nextCursor}&${beside}`, fresh.key),
          400,
          'invalid_parameter',
          'cursor',
        );
      }
      // A cursor made without types takes none beside it.
      const plain = await page('?limit=2', fresh.key);
      expectError(
        await feedRaw(`?cursor=${plain.nextCursor}&types=note.created`, fresh.key),
        400,
        'invalid_parameter',
        'cursor',
      );
      expect((await page(`?cursor=${plain.nextCursor}&limit=2`, fresh.key)).data).toEqual(all.slice(2, 4));
    });

    it('refuses a bad limit, bad types and unknown parameters', async () => {
      for (const limit of ['0', '101', '-1', '1.5', 'abc', '', '1e2', '0x10']) {
        expectError(await feedRaw(`?limit=${encodeURIComponent(limit)}`, fresh.key), 400, 'invalid_parameter', 'limit');
      }
      expectError(await feedRaw('?limit=1&limit=2', fresh.key), 400, 'invalid_parameter', 'limit');
      expect((await page('?limit=100', fresh.key)).data.length).toBeLessThanOrEqual(100);
      expect((await page('?limit=1', fresh.key)).data).toHaveLength(1);
      for (const types of [
        '',
        ',',
        'note.created,',
        'note.deleted',
        'note',
        'nope.created',
        'member.created',
        'file.created',
        'list.deleted',
        'NOTE.CREATED',
        'project.completed',
      ]) {
        expectError(await feedRaw(`?types=${encodeURIComponent(types)}`, fresh.key), 400, 'invalid_parameter', 'types');
      }
      expectError(
        await feedRaw('?types=note.created&types=note.updated', fresh.key),
        400,
        'invalid_parameter',
        'types',
      );
      // The custom type is the suite workspace's, not this one's.
      expect(
        (await page('?types=project.created', suite.ws.key)).data.every((event) => event.type === 'project.created'),
      ).toBe(true);
      expectError(await feedRaw('?types=project.created', fresh.key), 400, 'invalid_parameter', 'types');
      for (const query of ['?since=0', '?offset=0', '?limit=5&after=3', '?Cursor=x']) {
        const response = await feedRaw(query, fresh.key);
        expectError(response, 400, 'invalid_parameter');
        expect(response.body.error.param).toBe(
          [...new URLSearchParams(query.slice(1)).keys()].find((name) => !['limit'].includes(name)),
        );
      }
    });

    it('refuses a malformed cursor with 400, never a 500', async () => {
      const valid = (await page('?limit=2', fresh.key)).nextCursor;
      const decoded = JSON.parse(Buffer.from(valid, 'base64url').toString('utf8'));
      expect(decoded).toEqual([fresh.workspaceId, expect.stringMatching(/^\d+$/), null, 2, expect.any(Number)]);
      const [workspaceId, after, types, limit, readAt] = decoded;
      const malformed: [string, string][] = [
        ['garbage', 'not a cursor!'],
        ['empty', ''],
        ['base64 of non-JSON', Buffer.from('hello there').toString('base64url')],
        ['base64 with padding', Buffer.from(JSON.stringify(decoded)).toString('base64')],
        ['an object', craftCursor({ workspaceId, after, types, limit, readAt })],
        ['too few members', craftCursor([workspaceId, after, types, limit])],
        ['too many members', craftCursor([...decoded, 1])],
        ['a number after', craftCursor([workspaceId, 5, types, limit, readAt])],
        ['a negative after', craftCursor([workspaceId, '-1', types, limit, readAt])],
        ['a huge after', craftCursor([workspaceId, '9'.repeat(40), types, limit, readAt])],
        ['a non-number after', craftCursor([workspaceId, 'abc', types, limit, readAt])],
        ['a workspace number', craftCursor([42, after, types, limit, readAt])],
        ['types not a list', craftCursor([workspaceId, after, 'note.created', limit, readAt])],
        ['empty types', craftCursor([workspaceId, after, [], limit, readAt])],
        ['types of numbers', craftCursor([workspaceId, after, [1], limit, readAt])],
        ['a fractional limit', craftCursor([workspaceId, after, types, 2.5, readAt])],
        ['a limit of 0', craftCursor([workspaceId, after, types, 0, readAt])],
        ['a negative limit', craftCursor([workspaceId, after, types, -1, readAt])],
        ['a limit over 100', craftCursor([workspaceId, after, types, 101, readAt])],
        ['a string limit', craftCursor([workspaceId, after, types, '2', readAt])],
        ['a string readAt', craftCursor([workspaceId, after, types, limit, String(readAt)])],
        ['a fractional readAt', craftCursor([workspaceId, after, types, limit, readAt + 0.5])],
        ['null', craftCursor(null)],
        ['huge', 'A'.repeat(9000)],
        ['a valid cursor cut short', valid.slice(0, -4)],
      ];
      const responses: Response[] = [];
      for (const [, cursor] of malformed)
        responses.push(await feedRaw(`?cursor=${encodeURIComponent(cursor)}`, fresh.key));
      expect(malformed.map(([name], index) => `${name}: ${responses[index].status}`)).toEqual(
        malformed.map(([name]) => `${name}: 400`),
      );
      for (const response of responses) expectError(response, 400, 'invalid_parameter', 'cursor');
      expectError(await feedRaw(`?cursor=${valid}&cursor=${valid}`, fresh.key), 400, 'invalid_parameter', 'cursor');
      expectError(await feedRaw(`?cursor[a]=${valid}`, fresh.key), 400, 'invalid_parameter');
      // Types the cursor names that the workspace has not are no error of the cursor's shape: they match nothing.
      expect(
        (
          await page(`?cursor=${craftCursor([workspaceId, after, ['note.created'], limit, readAt])}`, fresh.key)
        ).data.every((event) => event.type === 'note.created'),
      ).toBe(true);
    });
  });

  describe('retention', () => {
    let fresh: TestWorkspace;
    let freshApi: RecordsApi;
    const age = (ids: string[], days: number) =>
      dataSource.query(`UPDATE events SET occurred_at = occurred_at - $2 * interval '1 day' WHERE id = ANY($1)`, [
        ids,
        days,
      ]);

    beforeAll(async () => {
      fresh = await createWorkspace(suite.t.http);
      freshApi = api.as(fresh.key, fresh.workspaceId);
    });

    it('EventPruner.prune() removes the events older than EVENT_RETENTION_DAYS, and only them', async () => {
      expect(suite.t.config.eventRetentionDays).toBe(RETENTION_DAYS);
      const notes: Entity[] = [];
      for (let index = 0; index < 4; index += 1)
        notes.push(await freshApi.create('note', { fields: { $title: `Old ${index}` } }));
      const events = (await follow(fresh.key)).events;
      expect(summary(events)).toEqual(notes.map((note) => `note.created ${note.id}`));
      await age([events[0].id, events[1].id], RETENTION_DAYS + 1);
      await age([events[2].id], RETENTION_DAYS - 1);
      const pruner = suite.t.app.get(EventPruner);
      expect(await pruner.prune()).toBe(2);
      const rows: { id: string }[] = await dataSource.query(
        `SELECT id FROM events WHERE workspace_id = $1 ORDER BY position`,
        [fresh.workspaceId],
      );
      expect(rows.map((row) => row.id)).toEqual([events[2].id, events[3].id]);
      expect(summary((await follow(fresh.key)).events)).toEqual(
        notes.slice(2).map((note) => `note.created ${note.id}`),
      );
      expect(await pruner.prune()).toBe(0);
    });

    it('answers a cursor older than retention 410 cursor_expired, with the present end to go on from', async () => {
      const valid = (await page('?limit=1', fresh.key)).nextCursor;
      const [workspaceId, after, types, limit] = JSON.parse(Buffer.from(valid, 'base64url').toString('utf8'));
      const old = craftCursor([workspaceId, after, types, limit, Date.now() - (RETENTION_DAYS + 1) * DAY]);
      const { cursor: end } = await follow(fresh.key);
      const expired = await feedRaw(`?cursor=${old}`, fresh.key);
      expectError(expired, 410, 'cursor_expired', 'cursor');
      const resync: string = expired.body.error.resyncCursor;
      // The present end, of the old cursor's types and limit: nothing after it yet, and the next event is there.
      const [, resyncAfter, resyncTypes, resyncLimit] = JSON.parse(Buffer.from(resync, 'base64url').toString('utf8'));
      expect({ types: resyncTypes, limit: resyncLimit }).toEqual({ types, limit });
      expect(BigInt(resyncAfter)).toBeGreaterThanOrEqual(
        BigInt(JSON.parse(Buffer.from(end, 'base64url').toString())[1]),
      );
      expect((await page(`?cursor=${resync}`, fresh.key)).data).toEqual([]);
      const note = await freshApi.create('note', { fields: { $title: 'After the resync' } });
      expect(summary((await page(`?cursor=${resync}`, fresh.key)).data)).toEqual([`note.created ${note.id}`]);
      expectError(
        await feedRaw(`?cursor=${craftCursor([workspaceId, after, types, limit, -1])}`, fresh.key),
        410,
        'cursor_expired',
        'cursor',
      );
      // Malformed and foreign cursors stay 400: there is nothing to resume.
      expectError(
        await feedRaw(`?cursor=${craftCursor([workspaceId, 'x', types, limit, 0])}`, fresh.key),
        400,
        'invalid_parameter',
        'cursor',
      );
      const recent = craftCursor([workspaceId, after, types, limit, Date.now() - (RETENTION_DAYS - 1) * DAY]);
      expect((await page(`?cursor=${recent}`, fresh.key)).data).toHaveLength(1);
    });

    it('reading from the start skips events past retention not pruned yet, so it never hands out a cursor that is refused at once', async () => {
      await freshApi.create('note', { fields: { $title: 'Newer' } });
      const kept = (await follow(fresh.key)).events;
      expect(kept.length).toBeGreaterThanOrEqual(2);
      // The oldest event outlived retention, and the hourly prune has not run yet.
      await age([kept[0].id], 2);
      const [{ older }] = await dataSource.query(
        `SELECT occurred_at < now() - $2 * interval '1 day' AS older FROM events WHERE id = $1`,
        [kept[0].id, RETENTION_DAYS],
      );
      expect(older).toBe(true);
      const first = await page('?limit=1', fresh.key);
      // The feed's start is the oldest event within retention.
      expect(first.data.map((event) => event.id)).toEqual([kept[1].id]);
      const next = await feedRaw(`?cursor=${first.nextCursor}`, fresh.key);
      expect({ status: next.status, body: next.status === 200 ? undefined : next.body }).toEqual({
        status: 200,
        body: undefined,
      });
      expect(await suite.t.app.get(EventPruner).prune()).toBe(1);
    });
  });
});

import { Client } from 'pg';
import { Transactions } from '../../src/database/transactions';
import { ChangeEvents } from '../../src/records/change-events';
import { newId } from '../../src/common/ids';
import { apiSuite } from '../support/api-suite';
import { concurrently, sleep } from '../support/concurrency';
import { createTestApp, TestApp, testDatabaseUrl, v1Headers } from '../support/test-app';

interface FeedPage {
  data: { id: string; type: string }[];
  nextCursor: string;
}

/** A seeded generator, so that a failing run can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * The change feed never skips an event, the outbox trap: positions are taken when transactions
 * append, but transactions commit in another order. A naive reader (one that reads everything
 * after its last position, as an id- or sequence-ordered poller does) runs beside the feed in each
 * test, to show that the scenario really has events committed behind a position already passed:
 * the naive reader misses them, the feed may not.
 */
describe('the change feed under concurrent writers', () => {
  const suite = apiSuite();
  let second: TestApp;
  let naive: Client;

  beforeAll(async () => {
    second = await createTestApp();
    naive = new Client({ connectionString: testDatabaseUrl() });
    await naive.connect();
  });
  afterAll(async () => {
    await naive.end();
    await second.close();
  });

  /** What an id- (or sequence-) ordered poller reads: everything committed after its last position. */
  async function naiveRead(workspaceId: string, after: string): Promise<{ id: string; position: string }[]> {
    const { rows } = await naive.query<{ id: string; position: string }>(
      'SELECT id, position::text FROM events WHERE workspace_id = $1 AND position > $2 ORDER BY position',
      [workspaceId, after],
    );
    return rows;
  }

  async function committedIds(workspaceId: string): Promise<string[]> {
    const { rows } = await naive.query<{ id: string }>(
      'SELECT id FROM events WHERE workspace_id = $1 ORDER BY position',
      [workspaceId],
    );
    return rows.map((row) => row.id);
  }

  /** A transaction that records one synthetic note event, then holds its position until `hold` resolves. */
  function slowWriter(
    app: TestApp,
    workspaceId: string,
    hold: () => Promise<void>,
    options: { rollBack?: boolean } = {},
  ) {
    const transactions = app.app.get(Transactions);
    const events = app.app.get(ChangeEvents);
    const id = newId('note');
    const written = transactions.run(async () => {
      const data = {
        id,
        createdAt: new Date().toISOString(),
        updatedAt: null,
        httpLink: null,
        fields: {},
        relationships: {},
        externalId: null,
      };
      events.record({
        workspaceId,
        entityType: 'note',
        entityId: id,
        action: 'updated',
        data,
        changes: { fields: ['$title'], relationships: [] },
      });
      // Runs after the append (ChangeEvents registered its append first): the position is taken, the commit waits.
      transactions.beforeCommit(async () => {
        await hold();
        if (options.rollBack) throw new Error('rolled back on purpose');
      });
    });
    return { entityId: id, written: options.rollBack ? written.catch(() => undefined) : written };
  }

  async function feedPage(app: TestApp, key: string, cursor?: string, limit = 100): Promise<FeedPage> {
    const query = cursor ? `cursor=${cursor}` : `limit=${limit}`;
    const response = await app.http.get(`/v1/events?${query}`).set(v1Headers(key));
    if (response.status !== 200)
      throw new Error(`GET /v1/events?${query}: ${response.status} ${JSON.stringify(response.body)}`);
    suite.openapi.assert(response);
    return response.body as FeedPage;
  }

  it('holds back what a still-open transaction could precede, answering within moments, where a naive reader passes it for good', async () => {
    const workspaceId = suite.ws.workspaceId;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let appended!: () => void;
    const holding = new Promise<void>((resolve) => (appended = resolve));
    // A takes its position and holds it; B takes a later one and commits first.
    const a = slowWriter(suite.t, workspaceId, async () => {
      appended();
      await released;
    });
    await holding;
    const b = await suite.post('/v1/notes', { fields: { $title: 'B, committed first' } });
    expect(b.status).toBe(200);

    const naiveSeen = await naiveRead(workspaceId, '0');
    expect(naiveSeen.map((row) => row.id)).toHaveLength(1);
    const naiveCursor = naiveSeen[0].position;

    // The feed answers (after waiting a moment for A) without B alone: B stays behind A, which may still commit.
    const early = await feedPage(suite.t, suite.ws.key);
    expect(early.data).toEqual([]);
    release();
    await a.written;
    const page = await feedPage(suite.t, suite.ws.key, early.nextCursor);
    const committed = await committedIds(workspaceId);
    expect(committed).toHaveLength(2);
    expect(page.data.map((event) => event.id)).toEqual(committed);
    expect(page.data.map((event) => event.type)).toEqual(['note.updated', 'note.created']);

    // The naive reader, from where it stood, never sees A: that is the skip the feed must not make.
    expect(await naiveRead(workspaceId, naiveCursor)).toEqual([]);
    const followed = await feedPage(suite.t, suite.ws.key, page.nextCursor);
    expect(followed.data).toEqual([]);
  });

  it('never holds a writer: a read answers while a transaction holding events stays open', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let appended!: () => void;
    const holding = new Promise<void>((resolve) => (appended = resolve));
    const open = slowWriter(suite.t, suite.ws.workspaceId, async () => {
      appended();
      await released;
    });
    await holding;
    try {
      // Reads on both instances, and writes beside them, all answer while the transaction stays open.
      for (let turn = 0; turn < 4; turn += 1) {
        await feedPage([suite.t, second][turn % 2], suite.ws.key);
        expect(
          (await suite.post('/v1/notes', { fields: { $title: `beside an open transaction ${turn}` } })).status,
        ).toBe(200);
      }
    } finally {
      release();
      await open.written;
    }
  });

  it('shows a write to a reader at once after it returned', async () => {
    const cursor = (await feedPage(suite.t, suite.ws.key)).nextCursor;
    const created = await suite.post('/v1/notes', { fields: { $title: 'Seen at once' } });
    const page = await feedPage(second, suite.ws.key, cursor);
    expect(page.data.map((event) => event.type)).toEqual(['note.created']);
    expect((page.data[0] as unknown as { entityId: string }).entityId).toBe(created.body.id);
  });

  it('gives a reader following cursors every committed event once, in position order, while writers of every length commit out of order on two instances', async () => {
    const workspace = suite.other;
    const next = random(20261126);
    const apps = [suite.t, second];
    const deadline = Date.now() + 4000;
    let writing = true;
    const rolledBack = new Set<string>();
    const read: string[] = [];
    let naiveCursor = '0';
    const naivelyRead: string[] = [];

    // Writers through the API: creates, updates and links, spread over both instances.
    const apiWriter = async (index: number) => {
      const app = apps[index % 2];
      const post = (path: string, body: object) => app.http.post(path).set(v1Headers(workspace.key)).send(body);
      const account = (await post('/v1/accounts', { fields: { $name: `Writer ${index}` } })).body.id as string;
      while (Date.now() < deadline) {
        // A create of one statement (it holds the append lock from its middle) beside ones of a transaction.
        expect((await post('/v1/notes', { fields: { $title: `plain ${index}` } })).status).toBe(200);
        const note = await post('/v1/notes', { fields: { $title: `n${index}` }, relationships: { $account: account } });
        expect(note.status).toBe(200);
        expect((await post(`/v1/notes/${note.body.id}`, { fields: { $content: `edited ${next()}` } })).status).toBe(
          200,
        );
      }
    };
    // Transactions that hold their positions for 0–200 ms before they commit, some rolling back.
    const slowWriterLoop = async (index: number) => {
      while (Date.now() < deadline) {
        const rollBack = next() < 0.2;
        const wait = Math.floor(next() * 200);
        const writer = slowWriter(apps[index % 2], workspace.workspaceId, () => sleep(wait), { rollBack });
        if (rollBack) rolledBack.add(writer.entityId);
        await writer.written;
      }
    };
    // The feed's reader: small pages, alternating instances, as fast as it can.
    const reader = async () => {
      const first = await feedPage(suite.t, workspace.key, undefined, 7);
      read.push(...first.data.map((event) => event.id));
      let cursor = first.nextCursor;
      let turn = 0;
      for (;;) {
        const stillWriting = writing;
        const page = await feedPage(apps[turn++ % 2], workspace.key, cursor);
        read.push(...page.data.map((event) => event.id));
        cursor = page.nextCursor;
        // Drained: a page that was not full, read after every writer had finished.
        if (!stillWriting && page.data.length < 7) return;
      }
    };
    const naiveReader = async () => {
      while (writing) {
        const rows = await naiveRead(workspace.workspaceId, naiveCursor);
        naivelyRead.push(...rows.map((row) => row.id));
        if (rows.length > 0) naiveCursor = rows[rows.length - 1].position;
        await sleep(2);
      }
      const rows = await naiveRead(workspace.workspaceId, naiveCursor);
      naivelyRead.push(...rows.map((row) => row.id));
    };

    const readers = Promise.all([reader(), naiveReader()]);
    await Promise.all([concurrently(4, apiWriter), concurrently(6, slowWriterLoop)]);
    writing = false;
    await readers;

    const committed = await committedIds(workspace.workspaceId);
    expect(committed.length).toBeGreaterThan(100);
    expect(new Set(read).size).toBe(read.length);
    expect(read).toEqual(committed);
    const { rows } = await naive.query<{ entity_id: string }>('SELECT entity_id FROM events WHERE workspace_id = $1', [
      workspace.workspaceId,
    ]);
    expect(rows.filter((row) => rolledBack.has(row.entity_id))).toEqual([]);
    // The scenario did commit events behind positions already passed: the naive reader missed some.
    expect(naivelyRead.length).toBeLessThan(committed.length);
  }, 60_000);

  it('gives ten pollers polling without pause every event once, in order, while writers create on two instances; no poll fails', async () => {
    const workspace = suite.ws;
    const apps = [suite.t, second];
    // Drain what earlier tests wrote, so that each poller's chain begins at the same place.
    let cursor = (await feedPage(suite.t, workspace.key)).nextCursor;
    for (
      let page = await feedPage(suite.t, workspace.key, cursor);
      page.data.length > 0;
      page = await feedPage(suite.t, workspace.key, cursor)
    ) {
      cursor = page.nextCursor;
    }
    const from = cursor;
    const before = new Set(await committedIds(workspace.workspaceId));
    const deadline = Date.now() + 3000;
    let writing = true;
    const failures: string[] = [];
    const poller = async (index: number): Promise<string[]> => {
      const read: string[] = [];
      let at = from;
      for (;;) {
        const stillWriting = writing;
        const app = apps[index % 2];
        const response = await app.http.get(`/v1/events?cursor=${at}`).set(v1Headers(workspace.key));
        if (response.status !== 200) {
          failures.push(`${response.status} ${JSON.stringify(response.body)}`);
          continue;
        }
        const page = response.body as FeedPage;
        read.push(...page.data.map((event) => event.id));
        at = page.nextCursor;
        if (!stillWriting && page.data.length === 0) return read;
      }
    };
    const writer = async (index: number) => {
      while (Date.now() < deadline) {
        const response = await apps[index % 2].http
          .post('/v1/notes')
          .set(v1Headers(workspace.key))
          .send({ fields: { $title: `polled ${index}` } });
        expect(response.status).toBe(200);
      }
    };
    const polling = concurrently(10, poller);
    await concurrently(4, writer);
    writing = false;
    const reads = await polling;

    expect(failures).toEqual([]);
    const written = (await committedIds(workspace.workspaceId)).filter((id) => !before.has(id));
    expect(written.length).toBeGreaterThan(20);
    for (const read of reads) expect(read).toEqual(written);
  }, 60_000);
});

import type { Response } from 'supertest';
import { setTimeout as sleep } from 'node:timers/promises';
import { FeedWaits } from '../../src/modules/events/feed-waits';
import { DataSource } from 'typeorm';
import { newId } from '../../src/common/ids';
import { EventSignals, SIGNALS_TRUSTED_MS } from '../../src/records/event-signals';
import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createKey } from '../support/factories';
import { countQueries } from '../support/query-counter';
import { createTestApp, TestApp, v1Headers } from '../support/test-app';

interface FeedPage {
  data: { type: string; entityId: string }[];
  nextCursor: string;
}

/** Waits until the app's process listens for the appends' signal (it begins at its first feed read). */
async function listening(app: TestApp): Promise<void> {
  const signals = app.app.get(EventSignals);
  for (let tries = 0; !signals.listening; tries += 1) {
    if (tries > 200) throw new Error('the process never listened for appends');
    await sleep(10);
  }
}

/**
 * Feed reads at the cost of the page, and long polls (docs/api.md §12): what a process knows of a
 * workspace's end, forgotten on each append signalled on any instance; `wait`, its wake-ups, its
 * time-out, its bound and its end when the instance drains.
 */
describe('the change feed: cheap polls and long polls', () => {
  const suite = apiSuite({ env: { EVENTS_MAX_WAITERS: '2' } });
  /** A second instance on the same database. */
  let other: TestApp;

  beforeAll(async () => {
    other = await createTestApp();
  });
  afterAll(() => other.close());

  const feed = (app: TestApp, query: string, key = suite.ws.key) =>
    app.http.get(`/v1/events${query}`).set(v1Headers(key));
  const page = async (app: TestApp, query: string, key = suite.ws.key): Promise<FeedPage> => {
    const response = await feed(app, query, key);
    expect({ status: response.status, body: response.status === 200 ? undefined : response.body }).toEqual({
      status: 200,
      body: undefined,
    });
    return response.body as FeedPage;
  };
  /** The cursor at the end of the feed, read on `app`. */
  const endOf = async (app: TestApp, key = suite.ws.key): Promise<string> => {
    let query = '?limit=100';
    for (;;) {
      const body = await page(app, query, key);
      if (body.data.length === 0) return body.nextCursor;
      query = `?cursor=${body.nextCursor}`;
    }
  };
  const note = async (app: TestApp, title: string, key = suite.ws.key): Promise<string> => {
    const response = await app.http
      .post('/v1/notes')
      .set(v1Headers(key))
      .send({ fields: { $title: title } });
    expect(response.status).toBe(200);
    return response.body.id as string;
  };

  /** Appends a note's event as an instance that died between its commit and its notification leaves it: never signalled. */
  const appendUnsignalled = async (): Promise<string> => {
    const id = newId('note');
    await suite.t.app.get(DataSource).query(
      `INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data)
       VALUES (nextval('event_positions'), $1, $2, 'note.created', 'note', $3, now(), '{}')`,
      [newId('event'), suite.ws.workspaceId, id],
    );
    return id;
  };

  it('answers a caught-up poll from what the process knows: no statement reads the events or the appends in flight', async () => {
    const end = await endOf(suite.t);
    await listening(suite.t);
    // The head this process knows, as the feed answers it (other suites' writes move the positions meanwhile).
    const cursor = (await page(suite.t, `?cursor=${end}`)).nextCursor;
    const { result, queries } = await countQueries(() => page(suite.t, `?cursor=${cursor}`));
    expect(result.data).toEqual([]);
    expect(queries.filter((query) => /\bevents\b|pg_locks|event_positions/.test(query))).toEqual([]);
  });

  it('reads a write of this instance at once, and one of another instance once its commit is signalled', async () => {
    const cursor = await endOf(suite.t);
    await listening(suite.t);
    await page(suite.t, `?cursor=${cursor}`);
    const here = await note(suite.t, 'Here');
    expect((await page(suite.t, `?cursor=${cursor}`)).data.map((event) => event.entityId)).toEqual([here]);

    const after = await endOf(suite.t);
    const there = await note(other, 'There');
    // The notification comes after the commit: within moments, on every instance.
    let seen: string[] = [];
    for (let tries = 0; tries < 100 && seen.length === 0; tries += 1) {
      seen = (await page(suite.t, `?cursor=${after}`)).data.map((event) => event.entityId);
      if (seen.length === 0) await sleep(10);
    }
    expect(seen).toEqual([there]);
  });

  it('wakes a long poll on one instance for a write on another, soon after its commit', async () => {
    const cursor = await endOf(suite.t);
    const waiting = feed(suite.t, `?cursor=${cursor}&wait=20`).then((response: Response) => ({
      response,
      at: Date.now(),
    }));
    await sleep(300);
    const id = await note(other, 'Woken');
    const written = Date.now();
    const { response, at } = await waiting;
    expect(response.status).toBe(200);
    expect((response.body as FeedPage).data.map((event) => event.entityId)).toEqual([id]);
    // 50 ms on a quiet machine; the bound leaves room for a loaded one.
    // Not the look a wait takes every 5 s in case a signal was lost: the signal.
    expect(at - written).toBeLessThan(400);
  });

  it('reads an append whose signal was lost: a poll within a second, a long poll within 5 s', async () => {
    const cursor = await endOf(suite.t);
    await listening(suite.t);
    expect((await page(suite.t, `?cursor=${cursor}`)).data).toEqual([]);
    const id = await appendUnsignalled();
    const appended = Date.now();
    let seen: string[] = [];
    while (seen.length === 0 && Date.now() - appended < 3000) {
      seen = (await page(suite.t, `?cursor=${cursor}`)).data.map((event) => event.entityId);
      if (seen.length === 0) await sleep(20);
    }
    expect(seen).toEqual([id]);
    expect(Date.now() - appended).toBeLessThan(SIGNALS_TRUSTED_MS + 500);

    // A long poll looks again every 5 s.
    const after = await endOf(suite.t);
    const waiting = feed(suite.t, `?cursor=${after}&wait=20`);
    await sleep(100);
    const unsignalled = await appendUnsignalled();
    const written = Date.now();
    const response = await waiting;
    expect((response.body as FeedPage).data.map((event) => event.entityId)).toEqual([unsignalled]);
    expect(Date.now() - written).toBeLessThan(5000 + 500);
  });

  it('answers an empty page with the same end when the wait is up', async () => {
    const cursor = await endOf(suite.t);
    const started = Date.now();
    const body = await page(suite.t, `?cursor=${cursor}&wait=1`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(body.data).toEqual([]);
    expect((await page(suite.t, `?cursor=${body.nextCursor}`)).data).toEqual([]);
  });

  it('keeps waiting past events the key may not read, and answers the first it may', async () => {
    const notesOnly = await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, [
      'events:read',
      'notes:read',
    ]);
    const cursor = await endOf(suite.t, notesOnly.key);
    const started = Date.now();
    const waiting = page(suite.t, `?cursor=${cursor}&wait=20`, notesOnly.key);
    await sleep(200);
    const task = await suite.post('/v1/tasks', {
      fields: { $title: 'Not readable', $status: 'TODO' },
      relationships: { $assignedTo: [suite.ws.memberId] },
    });
    expect({ status: task.status, body: task.status === 200 ? undefined : task.body }).toEqual({
      status: 200,
      body: undefined,
    });
    await sleep(300);
    const id = await note(suite.t, 'Readable');
    const body = await waiting;
    expect(body.data.map((event) => `${event.type} ${event.entityId}`)).toEqual([`note.created ${id}`]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it('holds at most EVENTS_MAX_WAITERS waiting reads; past them 503 too_many_waiters with Retry-After', async () => {
    const cursor = await endOf(suite.t);
    const first = feed(suite.t, `?cursor=${cursor}&wait=20`).then((response: Response) => response);
    const second = feed(suite.t, `?cursor=${cursor}&wait=20`).then((response: Response) => response);
    await sleep(300);
    const refused = await feed(suite.t, `?cursor=${cursor}&wait=5`);
    expectError(refused, 503, 'too_many_waiters', 'wait');
    expect(refused.headers['retry-after']).toBe('1');
    // A read that needs no wait is answered, waiters or not.
    expect((await page(suite.t, `?cursor=${cursor}`)).data).toEqual([]);
    const id = await note(suite.t, 'For both');
    for (const response of [await first, await second]) {
      expect(response.status).toBe(200);
      expect((response.body as FeedPage).data.map((event) => event.entityId)).toEqual([id]);
    }
    // Their places are free again.
    const next = await endOf(suite.t);
    const third = feed(suite.t, `?cursor=${next}&wait=1`);
    expect((await third).status).toBe(200);
  });

  it('frees the place of a caller that went away', async () => {
    const cursor = await endOf(suite.t);
    for (let round = 0; round < 3; round += 1) {
      await expect(feed(suite.t, `?cursor=${cursor}&wait=20`).timeout(200)).rejects.toThrow(/Timeout/);
    }
    await sleep(100);
    const waiting = [1, 2].map(() => feed(suite.t, `?cursor=${cursor}&wait=1`).then((response: Response) => response));
    for (const response of await Promise.all(waiting)) expect(response.status).toBe(200);
  });

  it('answers every waiting read at once when the instance drains', async () => {
    const draining = await createTestApp();
    try {
      const cursor = await endOf(draining);
      const started = Date.now();
      const waiting = page(draining, `?cursor=${cursor}&wait=20`);
      await sleep(300);
      draining.app.get(FeedWaits).release();
      const body = await waiting;
      expect(body.data).toEqual([]);
      expect(Date.now() - started).toBeLessThan(5000);
      // After it, a wait does not wait.
      const quick = Date.now();
      await page(draining, `?cursor=${cursor}&wait=20`);
      expect(Date.now() - quick).toBeLessThan(5000);
    } finally {
      await draining.close();
    }
  });

  it('refuses a wait outside 0..30', async () => {
    for (const wait of ['-1', '31', '1.5', 'x'])
      expectError(await feed(suite.t, `?wait=${wait}`), 400, 'invalid_parameter', 'wait');
  });
});

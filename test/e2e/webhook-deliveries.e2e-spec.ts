import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Transactions } from '../../src/database/transactions';
import { WebhookDeliveries } from '../../src/modules/webhooks/webhook-deliveries';
import { WebhookQueue } from '../../src/modules/webhooks/webhook-queue';
import { WebhookEndpointRow, WebhooksRepository } from '../../src/modules/webhooks/webhooks.repository';
import { apiSuite } from '../support/api-suite';
import { concurrently, sleep, until } from '../support/concurrency';
import { createKey, createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { ScratchDatabase } from '../support/scratch-database';
import { createTestApp, TestApp, v1Headers } from '../support/test-app';
import { uploadFile } from '../support/transcripts';
import { newWebhookSecret, ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver';

const HOUR = 3_600_000;
const past = (hoursAgo: number) => new Date(Date.now() - hoursAgo * HOUR).toISOString();
/** Six attempts, a second apart after the first: retries come quickly enough to watch. */
const RETRY_SCHEDULE = '0,1,1,1,1,1';
const APP_ENV = { ROLES: 'api,worker', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE };

/** Who an endpoint reads events as: a member of a workspace, and that member's key. */
interface Owner {
  workspaceId: string;
  memberId: string;
  apiKeyId: string;
}

/** One row of the delivery log, as stored. */
interface Attempt {
  event_id: string;
  attempt: number;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  response_status: number | null;
  error: string | null;
  scheduled_at: Date;
  attempted_at: Date | null;
  next_attempt_at: Date | null;
  claimed_by: string | null;
}

interface FeedEvent {
  id: string;
  type: string;
  entityId: string;
  data: any;
  changes?: { fields: string[]; relationships: string[] };
}

/**
 * Webhook deliveries end to end: the service's job queue makes each attempt and POSTs it to a
 * receiver listening on 127.0.0.1 (test/support/webhook-receiver.ts), which verifies each
 * request's signature as a customer's would. Endpoints are made through the repository (their
 * routes are not this suite's).
 *
 * Every app runs the webhook queue on its database, with its own settings: on the run's shared
 * database, another suite's app (private networks refused, the default schedule) could make this
 * suite's attempts. So the suite has a database of its own, and so has each app of other
 * settings, or that a test closes; a second instance shares the suite's.
 */
describe('webhook deliveries to a real receiver', () => {
  const receivers: WebhookReceiver[] = [];
  // Registered before the suite's app closes (after-all hooks run in the order they are declared):
  // a receiver holding answers (the slow one) would otherwise keep the queue's shutdown waiting.
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });
  /** Apps besides the suite's, closed once (by their test, else here), and the databases made for them dropped. */
  const otherApps: { t: TestApp; madeFor?: ScratchDatabase; closed?: Promise<void> }[] = [];
  const closeOther = (other: (typeof otherApps)[number]) => (other.closed ??= other.t.close());
  afterAll(async () => {
    for (const other of otherApps) await closeOther(other).finally(() => other.madeFor?.drop());
  });
  const database = new ScratchDatabase('records_webhooks');
  beforeAll(() => database.create());
  const suite = apiSuite({ env: { ...APP_ENV, DATABASE_URL: database.url } });
  afterAll(() => database.drop());

  const http = () => suite.t.http;
  const post = (path: string, body: unknown, key: string) =>
    suite.t.http
      .post(path)
      .set(v1Headers(key))
      .send(body as object);
  const get = (path: string, key: string) => suite.t.http.get(path).set(v1Headers(key));
  const ok = <T extends { status: number; body: any }>(response: T): T => {
    if (response.status !== 200) throw new Error(`${response.status} ${JSON.stringify(response.body)}`);
    return response;
  };
  const owner = (ws: TestWorkspace): Owner => ({
    workspaceId: ws.workspaceId,
    memberId: ws.memberId,
    apiKeyId: ws.apiKeyId,
  });

  /**
   * Another app with `env`: on the suite's database (a second instance), or on a new one of its
   * own (`own`), whose queue makes only the attempts of that app.
   */
  async function anotherApp(
    env: Record<string, string>,
    { own = false } = {},
  ): Promise<{ t: TestApp; url: string; close: () => Promise<void> }> {
    const madeFor = own ? new ScratchDatabase('records_webhooks_own') : undefined;
    await madeFor?.create();
    const url = madeFor?.url ?? database.url;
    const entry: (typeof otherApps)[number] = {
      t: await createTestApp({ env: { ...env, DATABASE_URL: url } }),
      madeFor,
    };
    otherApps.push(entry);
    return { t: entry.t, url, close: () => closeOther(entry) };
  }

  async function startReceiver(): Promise<WebhookReceiver> {
    const receiver = await WebhookReceiver.start(newWebhookSecret());
    receivers.push(receiver);
    return receiver;
  }

  /** An endpoint (ENABLED, as a create makes it) of `owner`'s key, subscribed to `eventTypes`, sending to `receiver`. */
  async function addEndpoint(
    app: TestApp,
    by: Owner,
    receiver: WebhookReceiver,
    eventTypes: string[],
  ): Promise<WebhookEndpointRow> {
    return app.app.get(Transactions).run(() =>
      app.app.get(WebhooksRepository).insertEndpoint({
        id: `whk_test_${randomBytes(8).toString('hex')}`,
        ...by,
        url: receiver.url,
        eventTypes,
        description: null,
        secret: receiver.secret,
      }),
    );
  }

  async function withReceiver(
    by: Owner,
    eventTypes: string[],
    app = suite.t,
  ): Promise<{ endpoint: WebhookEndpointRow; receiver: WebhookReceiver }> {
    const receiver = await startReceiver();
    return { endpoint: await addEndpoint(app, by, receiver, eventTypes), receiver };
  }

  /** The endpoint's delivery log, through the app, or on the database at a URL (of an app that has closed). */
  async function attemptsOf(endpointId: string, from: TestApp | string = suite.t): Promise<Attempt[]> {
    const sql = `SELECT event_id, attempt, status, response_status, error, scheduled_at, attempted_at, next_attempt_at, claimed_by
                   FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY event_id, attempt`;
    if (typeof from !== 'string') return from.app.get(DataSource).query(sql, [endpointId]);
    const client = new Client({ connectionString: from });
    await client.connect();
    try {
      return (await client.query<Attempt>(sql, [endpointId])).rows;
    } finally {
      await client.end();
    }
  }

  /** Resolves once the endpoint has attempts (its fan-out ran) and none is due or under way. */
  async function settled(endpointId: string, timeoutMs = 20_000, app = suite.t): Promise<Attempt[]> {
    let attempts: Attempt[] = [];
    await until(
      `the attempts of ${endpointId} to end`,
      async () =>
        (attempts = await attemptsOf(endpointId, app)).length > 0 &&
        attempts.every((attempt) => attempt.status !== 'PENDING'),
      timeoutMs,
    );
    return attempts;
  }

  /** Every event the key may read, oldest first, page after page. */
  async function feedOf(key: string): Promise<FeedEvent[]> {
    const events: FeedEvent[] = [];
    let page = ok(await get('/v1/events?limit=100', key)).body;
    while (page.data.length > 0) {
      events.push(...page.data);
      page = ok(await get(`/v1/events?cursor=${page.nextCursor}`, key)).body;
    }
    return events;
  }

  /** A condition: the receiver has had `count` distinct events delivered. */
  const hasDelivered = (receiver: WebhookReceiver, count: number) => () =>
    new Set(receiver.delivered.map((hook) => hook.id)).size >= count;

  /** The receiver's delivered requests by webhook-id, failing if one came twice. */
  /** The endpoint once the service has disabled it. */
  async function disabledEndpoint(ws: TestWorkspace, endpointId: string) {
    const repository = suite.t.app.get(WebhooksRepository);
    await until(
      'the endpoint to be disabled',
      async () => (await repository.findEndpoint(ws.workspaceId, endpointId))!.status === 'DISABLED',
    );
    return repository.findEndpoint(ws.workspaceId, endpointId);
  }

  function deliveredById(receiver: WebhookReceiver): Map<string, ReceivedWebhook> {
    const byId = new Map<string, ReceivedWebhook>();
    for (const hook of receiver.delivered) {
      expect({ id: hook.id, again: byId.has(hook.id) }).toEqual({ id: hook.id, again: false });
      byId.set(hook.id, hook);
    }
    return byId;
  }

  it('delivers each event to every endpoint subscribed to its type, signed, as the feed shows it to the endpoint key, meetings redacted for its member', async () => {
    const ws = await createWorkspace(http());
    // A member who neither created nor attends the meeting: METADATA access to it; and a key that reads no accounts, lists or files.
    const outsider = await createMember(http(), ws.workspaceId);
    const outsiderKey = await createKey(http(), ws.workspaceId, outsider.id, [
      'notes:read',
      'meetings:read',
      'events:read',
    ]);

    const everything = await withReceiver(owner(ws), ['*']);
    const notesCreated = await withReceiver(owner(ws), ['note.created']);
    const disabled = await withReceiver(owner(ws), ['*']);
    await suite.t.app.get(Transactions).run(() =>
      suite.t.app.get(WebhooksRepository).updateEndpoint(ws.workspaceId, disabled.endpoint.id, {
        status: 'DISABLED',
        disabledReason: 'paused by the test',
      }),
    );
    const member = await withReceiver(
      { workspaceId: ws.workspaceId, memberId: outsider.id, apiKeyId: outsiderKey.id },
      ['*'],
    );

    const note = ok(await post('/v1/notes', { fields: { $title: 'Kick-off' } }, ws.key)).body;
    ok(await post(`/v1/notes/${note.id}`, { fields: { $title: 'Kick-off, moved' } }, ws.key));
    ok(await post('/v1/notes', { fields: { $title: 'Retro' } }, ws.key));
    const account = ok(await post('/v1/accounts', { fields: { $name: 'Acme' } }, ws.key)).body;
    ok(
      await post(
        '/v1/lists',
        { fields: { $name: 'Targets', $objectType: 'account' }, relationships: { $accounts: [account.id] } },
        ws.key,
      ),
    );
    const meeting = ok(
      await post(
        '/v1/meetings',
        {
          fields: {
            $title: 'Board',
            $startDate: past(3),
            $endDate: past(2),
            $description: 'secret agenda',
            $privacySetting: 'METADATA',
          },
        },
        ws.key,
      ),
    ).body;
    const transcript = await uploadFile(http(), ws.key);
    ok(await post(`/v1/meetings/${meeting.id}`, { relationships: { $transcript: { replace: transcript } } }, ws.key));

    const feed = await feedOf(ws.key);
    expect(feed.map((event) => event.type).sort()).toEqual(
      [
        'account.created',
        'file.completed',
        'list.created',
        'list.member_added',
        'meeting.created',
        'meeting.updated',
        'note.created',
        'note.created',
        'note.updated',
      ].sort(),
    );
    const memberFeed = await feedOf(outsiderKey.key);
    expect(memberFeed.map((event) => event.type)).toEqual([
      'note.created',
      'note.updated',
      'note.created',
      'meeting.created',
      'meeting.updated',
    ]);

    await until('every event to reach the endpoint subscribed to all', hasDelivered(everything.receiver, feed.length));
    await until("the member's events to reach its endpoint", hasDelivered(member.receiver, memberFeed.length));
    await until('the note.created events to reach their endpoint', hasDelivered(notesCreated.receiver, 2));
    for (const { endpoint } of [everything, notesCreated, member]) await settled(endpoint.id);

    // Each request verified against the endpoint's secret (else the receiver answered 401), webhook-id the event's id, the body the event as the feed shows it to the endpoint's key.
    for (const [{ receiver }, events] of [
      [everything, feed],
      [notesCreated, feed.filter((event) => event.type === 'note.created')],
      [member, memberFeed],
    ] as const) {
      expect(receiver.rejected).toEqual([]);
      const byId = deliveredById(receiver);
      expect([...byId.keys()].sort()).toEqual(events.map((event) => event.id).sort());
      for (const event of events) {
        const hook = byId.get(event.id)!;
        expect(hook.payload).toEqual(event);
        expect(hook.type).toBe(event.type);
        expect(hook.headers['content-type']).toBe('application/json');
      }
    }

    // The meeting as the outsider's GET shows it: redacted, its transcript link named neither in its data nor in the update's changes.
    const [memberMeetingCreated, memberMeetingUpdated] = ['meeting.created', 'meeting.updated'].map(
      (type) => member.receiver.delivered.find((hook) => hook.type === type)!.payload,
    );
    const outsiderRead = ok(await get(`/v1/meetings/${meeting.id}`, outsiderKey.key)).body;
    expect(outsiderRead).toMatchObject({ accessLevel: 'METADATA', fields: { $description: { value: null } } });
    expect(memberMeetingUpdated.data).toEqual(outsiderRead);
    expect(memberMeetingUpdated.changes).toEqual({ fields: [], relationships: [] });
    expect(memberMeetingCreated.data).toEqual({
      ...outsiderRead,
      updatedAt: memberMeetingCreated.data.updatedAt,
      version: 1,
    });
    // The creator's endpoint got it in full.
    const fullUpdate = everything.receiver.delivered.find((hook) => hook.type === 'meeting.updated')!.payload;
    expect(fullUpdate.data).toEqual(ok(await get(`/v1/meetings/${meeting.id}`, ws.key)).body);
    expect(fullUpdate.data).toMatchObject({
      accessLevel: 'FULL',
      relationships: { $transcript: { values: [transcript] } },
    });
    expect(fullUpdate.changes).toEqual({ fields: [], relationships: ['$transcript'] });

    // What an endpoint's key may not read is attempted once, never sent, and recorded as failed for that reason.
    const refused = (await attemptsOf(member.endpoint.id)).filter((attempt) => attempt.status === 'FAILED');
    expect(refused.map((attempt) => attempt.error).sort()).toEqual(
      ['account.created', 'file.completed', 'list.created', 'list.member_added'].map(
        (type) => `the endpoint's API key may not read ${type} events`,
      ),
    );
    expect(refused.every((attempt) => attempt.attempt === 1 && attempt.next_attempt_at === null)).toBe(true);

    // The note.created endpoint has no attempt of any other type; the disabled one none at all, and no connection.
    expect((await attemptsOf(notesCreated.endpoint.id)).map((attempt) => attempt.event_id).sort()).toEqual(
      feed
        .filter((event) => event.type === 'note.created')
        .map((event) => event.id)
        .sort(),
    );
    expect(notesCreated.receiver.received.map((hook) => hook.type)).toEqual(['note.created', 'note.created']);
    expect(await attemptsOf(disabled.endpoint.id)).toEqual([]);
    expect(disabled.receiver.connections).toBe(0);
  });

  /** The attempts of each event, in order. */
  function byEvent(attempts: Attempt[]): Map<string, Attempt[]> {
    const grouped = new Map<string, Attempt[]>();
    for (const attempt of attempts) grouped.set(attempt.event_id, [...(grouped.get(attempt.event_id) ?? []), attempt]);
    return grouped;
  }

  /** Fails unless each event's attempts are numbered 1, 2, … and each failed one names when the next was due (its scheduled time). */
  function expectChained(attempts: Attempt[]): void {
    for (const [eventId, chain] of byEvent(attempts)) {
      expect({ eventId, numbers: chain.map((attempt) => attempt.attempt) }).toEqual({
        eventId,
        numbers: chain.map((_attempt, index) => index + 1),
      });
      for (const [index, attempt] of chain.slice(0, -1).entries()) {
        expect({
          eventId,
          attempt: attempt.attempt,
          status: attempt.status,
          next: attempt.next_attempt_at?.getTime(),
        }).toEqual({
          eventId,
          attempt: attempt.attempt,
          status: 'FAILED',
          next: chain[index + 1].scheduled_at.getTime(),
        });
      }
    }
  }

  it('delivers what was written while the receiver was down once it is back; the log shows the failed attempts, then the one that succeeded', async () => {
    const ws = await createWorkspace(http());
    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created']);
    await receiver.down();
    const notes = await concurrently(
      5,
      async (i) => ok(await post('/v1/notes', { fields: { $title: `while down ${i}` } }, ws.key)).body,
    );
    await until(
      'two failed attempts of each event',
      async () =>
        [...byEvent(await attemptsOf(endpoint.id)).values()].filter(
          (chain) => chain.filter((a) => a.status === 'FAILED').length >= 2,
        ).length === 5,
    );
    expect(receiver.received).toEqual([]);
    await receiver.up();

    await until('every event to be delivered', hasDelivered(receiver, 5));
    const attempts = await settled(endpoint.id);
    expectChained(attempts);
    const chains = [...byEvent(attempts).values()];
    expect(chains).toHaveLength(5);
    for (const chain of chains) {
      const failed = chain.slice(0, -1);
      expect(failed.length).toBeGreaterThanOrEqual(2);
      for (const attempt of failed) {
        expect(attempt.error).toMatch(/ECONNREFUSED/);
        expect(attempt.response_status).toBeNull();
        // The schedule's 1 s, ± 10 %.
        expect(attempt.next_attempt_at!.getTime() - attempt.attempted_at!.getTime()).toBeGreaterThanOrEqual(900);
      }
      expect(chain.at(-1)).toMatchObject({
        status: 'SUCCEEDED',
        response_status: 204,
        error: null,
        next_attempt_at: null,
      });
    }
    const delivered = deliveredById(receiver);
    const feed = await feedOf(ws.key);
    expect([...delivered.keys()].sort()).toEqual(feed.map((event) => event.id).sort());
    expect(feed.map((event) => event.entityId).sort()).toEqual(notes.map((note) => note.id).sort());
  });

  it('records an attempt whose making threw as failed and makes the next one on the schedule: the queue retries no job of its own', async () => {
    const ws = await createWorkspace(http());
    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created']);
    // make() is what both the fan-out and a delivery job call to make an attempt.
    const attempt = jest
      .spyOn(WebhookDeliveries.prototype, 'make')
      .mockRejectedValueOnce(new Error('a fault of the service'));
    try {
      ok(await post('/v1/notes', { fields: { $title: 'thrown once' } }, ws.key));
      await until('the event to be delivered', hasDelivered(receiver, 1));
    } finally {
      attempt.mockRestore();
    }
    const attempts = await settled(endpoint.id);
    expect(attempts.map((row) => [row.attempt, row.status, row.error])).toEqual([
      [1, 'FAILED', 'the service failed while making this attempt'],
      [2, 'SUCCEEDED', null],
    ]);
    // The schedule's 1 s, ± 10 %, after the failure.
    expect(attempts[0].next_attempt_at!.getTime() - attempts[0].attempted_at!.getTime()).toBeGreaterThanOrEqual(900);
    expect(receiver.delivered).toHaveLength(1);
  });

  it('enqueues again an attempt whose making threw and could not be recorded, once it is a minute overdue', async () => {
    const ws = await createWorkspace(http());
    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created']);
    const attempt = jest
      .spyOn(WebhookDeliveries.prototype, 'make')
      .mockRejectedValueOnce(new Error('a fault of the service'));
    const record = jest
      .spyOn(WebhookDeliveries.prototype, 'recordUnexpectedFailure')
      .mockRejectedValueOnce(new Error('the database went away'));
    const dataSource = suite.t.app.get(DataSource);
    const claimed = async () =>
      (
        await dataSource.query(
          `SELECT count(*)::int AS count FROM webhook_deliveries WHERE endpoint_id = $1 AND claimed_by IS NOT NULL`,
          [endpoint.id],
        )
      )[0].count as number;
    try {
      ok(await post('/v1/notes', { fields: { $title: 'dropped once' } }, ws.key));
      await until(
        'the failed record to be left to the recovery, its claim let go',
        async () => record.mock.calls.length === 1 && (await claimed()) === 0,
      );
    } finally {
      attempt.mockRestore();
      record.mockRestore();
    }
    expect((await attemptsOf(endpoint.id)).map((row) => row.status)).toEqual(['PENDING']);
    await sleep(1500);
    expect(receiver.received).toEqual([]);

    const recovery = suite.t.app.get(WebhookQueue);
    expect(await recovery.recoverAbandoned()).toBe(0);
    await dataSource.query(
      `UPDATE webhook_deliveries SET scheduled_at = scheduled_at - interval '2 minutes' WHERE endpoint_id = $1`,
      [endpoint.id],
    );
    expect(await recovery.recoverAbandoned()).toBe(1);
    await until('the event to be delivered', hasDelivered(receiver, 1));
    expect((await settled(endpoint.id)).map((row) => [row.attempt, row.status])).toEqual([[1, 'SUCCEEDED']]);
  });

  it('removes from the log the attempts made more than WEBHOOK_DELIVERY_RETENTION_DAYS ago, and never a PENDING one', async () => {
    const ws = await createWorkspace(http());
    const { endpoint } = await withReceiver(owner(ws), ['note.created']);
    const dataSource = suite.t.app.get(DataSource);
    const days = suite.t.config.webhooks.deliveryRetentionDays;
    expect(days).toBe(suite.t.config.eventRetentionDays);
    const insert = (status: string, ageDays: number, scheduledInDays = -ageDays) =>
      dataSource.query(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, attempt, status, scheduled_at, created_at, workspace_id)
         VALUES ($1, 'evt_test_' || gen_random_uuid(), 1, $2, now() + make_interval(days => $4), now() - make_interval(days => $3), $5)`,
        [endpoint.id, status, ageDays, scheduledInDays, owner(ws).workspaceId],
      );
    for (let i = 0; i < 3; i += 1) await insert('SUCCEEDED', days + 1);
    await insert('FAILED', days + 2);
    await insert('SUCCEEDED', days - 1);
    // Due tomorrow: its job waits, as a retry's would.
    await insert('PENDING', days + 3, 1);

    expect(await suite.t.app.get(WebhookQueue).pruneLog()).toBe(4);
    expect((await attemptsOf(endpoint.id)).map((row) => row.status).sort()).toEqual(['PENDING', 'SUCCEEDED']);
    expect(await suite.t.app.get(WebhookQueue).pruneLog()).toBe(0);
    await suite.t.app
      .get(Transactions)
      .run(() => suite.t.app.get(WebhooksRepository).deleteEndpoint(ws.workspaceId, endpoint.id));
  });

  it('sends every attempt of an event with the same webhook-id and body, signed anew, and records each answer', async () => {
    const ws = await createWorkspace(http());
    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created']);
    receiver.answerNext({ status: 500 }, { status: 502 });
    ok(await post('/v1/notes', { fields: { $title: 'third time lucky' } }, ws.key));
    await until('the event to be delivered', hasDelivered(receiver, 1));
    const attempts = await settled(endpoint.id);
    const [event] = await feedOf(ws.key);
    expect(receiver.rejected).toEqual([]);
    expect(receiver.received.map((hook) => [hook.id, hook.status, hook.body])).toEqual([
      [event.id, 500, JSON.stringify(event)],
      [event.id, 502, JSON.stringify(event)],
      [event.id, 204, JSON.stringify(event)],
    ]);
    expectChained(attempts);
    expect(
      attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.response_status, attempt.error]),
    ).toEqual([
      [1, 'FAILED', 500, 'the receiver answered 500'],
      [2, 'FAILED', 502, 'the receiver answered 502'],
      [3, 'SUCCEEDED', 204, null],
    ]);
  });

  it('waits at least a 503 Retry-After before the next attempt, longer than the schedule says; a 503 without one follows the schedule', async () => {
    const ws = await createWorkspace(http());
    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created']);
    receiver.answerNext({ status: 503, headers: { 'Retry-After': '3' } });
    ok(await post('/v1/notes', { fields: { $title: 'come back later' } }, ws.key));
    await until('the event to be delivered', hasDelivered(receiver, 1), 20_000);
    receiver.answerNext({ status: 503 });
    ok(await post('/v1/notes', { fields: { $title: 'come back soon' } }, ws.key));
    await until('the second event to be delivered', hasDelivered(receiver, 2), 20_000);

    const [told, untold] = [receiver.received.slice(0, 2), receiver.received.slice(2)];
    expect(told.map((hook) => hook.status)).toEqual([503, 204]);
    expect(told[1].receivedAt - told[0].receivedAt).toBeGreaterThanOrEqual(3000);
    expect(untold.map((hook) => hook.status)).toEqual([503, 204]);
    const chains = [...byEvent(await settled(endpoint.id)).values()].sort(
      (a, b) => a[0].scheduled_at.getTime() - b[0].scheduled_at.getTime(),
    );
    const waited = chains.map(([first]) => first.next_attempt_at!.getTime() - first.attempted_at!.getTime());
    expect(waited[0]).toBeGreaterThanOrEqual(3000);
    expect(waited[1]).toBeGreaterThanOrEqual(900);
    expect(waited[1]).toBeLessThan(2500);
  });

  it('disables the endpoint when the receiver answers 410 Gone, and makes no further attempt', async () => {
    const ws = await createWorkspace(http());
    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created']);
    receiver.answer({ status: 410 });
    ok(await post('/v1/notes', { fields: { $title: 'gone' } }, ws.key));
    expect(await disabledEndpoint(ws, endpoint.id)).toMatchObject({
      status: 'DISABLED',
      disabled_reason: 'the receiver answered 410 Gone',
    });

    ok(await post('/v1/notes', { fields: { $title: 'after it went' } }, ws.key));
    // Nothing is waited for: the failed attempt has no successor (its next_attempt_at below), and a
    // write that no ENABLED endpoint subscribes to leaves no row in the outbox (the policy: webhook-retry-policy.spec.ts).
    const dataSource = suite.t.app.get(DataSource);
    const [{ rows }] = await dataSource.query(
      `SELECT count(*)::int AS rows FROM webhook_outbox WHERE workspace_id = $1`,
      [ws.workspaceId],
    );
    expect(rows).toBe(0);
    expect(receiver.received.map((hook) => hook.status)).toEqual([410]);
    expect(receiver.connections).toBe(1);
    expect(
      (await settled(endpoint.id)).map((attempt) => [
        attempt.attempt,
        attempt.status,
        attempt.response_status,
        attempt.next_attempt_at,
      ]),
    ).toEqual([[1, 'FAILED', 410, null]]);
  });

  it('disables the endpoint once every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS (a streak that began 120 hours ago)', async () => {
    const ws = await createWorkspace(http());
    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created']);
    const dataSource = suite.t.app.get(DataSource);
    await dataSource.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '120 hours' WHERE id = $1`, [
      endpoint.id,
    ]);
    receiver.answer({ status: 500 });
    ok(await post('/v1/notes', { fields: { $title: 'one failure too many' } }, ws.key));
    expect(await disabledEndpoint(ws, endpoint.id)).toMatchObject({
      disabled_reason: 'every attempt failed for 120 hours',
    });
    expect(
      (await settled(endpoint.id)).map((attempt) => [
        attempt.attempt,
        attempt.status,
        attempt.response_status,
        attempt.next_attempt_at,
      ]),
    ).toEqual([[1, 'FAILED', 500, null]]);
  });

  /**
   * An app of its own closed while its one attempt waits `delayMs` for its receiver's 204; answers
   * how long the close took, the endpoint's delivery log after it, and the receiver.
   */
  async function shutDownDuringAttempt(delayMs: number) {
    const own = await anotherApp(APP_ENV, { own: true });
    const ws = await createWorkspace(own.t.http);
    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created'], own.t);
    receiver.answer({ status: 204, delayMs });
    ok(
      await own.t.http
        .post('/v1/notes')
        .set(v1Headers(ws.key))
        .send({ fields: { $title: 'sent as it stops' } }),
    );
    await until('the attempt to be under way', () => receiver.inFlight === 1);
    const closing = Date.now();
    await own.close();
    return { closedInMs: Date.now() - closing, attempts: await attemptsOf(endpoint.id, own.url), receiver };
  }

  it('lets the attempts under way finish when an instance shuts down, and records them', async () => {
    const { attempts, receiver } = await shutDownDuringAttempt(1500);
    expect(receiver.delivered).toHaveLength(1);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.response_status])).toEqual([
      [1, 'SUCCEEDED', 204],
    ]);
  });

  it('cuts off, when an instance shuts down, an attempt still waiting on its receiver seconds later, and records it failed with the next attempt due', async () => {
    const { closedInMs, attempts, receiver } = await shutDownDuringAttempt(60_000);
    // The service's SIGTERM gives what follows its HTTP drain 5 s (SHUTDOWN_GRACE_MS in main.ts), then exits 1: the
    // attempt may not wait for its 15 s timeout.
    expect(closedInMs).toBeLessThan(5000);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.response_status])).toEqual([
      [1, 'FAILED', null],
      [2, 'PENDING', null],
    ]);
    expect(attempts[0].error).toBe('cut off: the instance making this attempt shut down');
    expect(attempts[0].next_attempt_at).toEqual(attempts[1].scheduled_at);
    expect(receiver.delivered).toEqual([]);
  });

  it('keeps creates as fast while every attempt the queue can make waits on a receiver that takes 10 s to answer', async () => {
    const ws = await createWorkspace(http());
    /** p50 and max of `count` creates made one after another, in ms. */
    const timeCreates = async (label: string, count = 30) => {
      const durations: number[] = [];
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        ok(await post('/v1/notes', { fields: { $title: `${label} ${i}` } }, ws.key));
        durations.push(Math.round(performance.now() - started));
      }
      const sorted = [...durations].sort((a, b) => a - b);
      return { p50: sorted[Math.floor(count / 2)], max: sorted[count - 1], durations };
    };
    const before = await timeCreates('no delivery');

    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created']);
    receiver.answer({ status: 204, delayMs: 10_000 });
    await concurrently(16, (i) => post('/v1/notes', { fields: { $title: `burst ${i}` } }, ws.key).then(ok));
    // A worker makes 16 attempts at once (webhook-fan-out.ts): all of them wait on the receiver.
    await until('every attempt the worker makes at once to wait on the receiver', () => receiver.inFlight >= 16);
    const during = await timeCreates('while deliveries wait');
    // Still waiting: every create above was measured while the receiver held them.
    expect({ inFlight: receiver.inFlight, delivered: receiver.delivered.length }).toEqual({
      inFlight: 16,
      delivered: 0,
    });

    // A create that waited on a receiver would take seconds; a loaded machine's slowest create, a fraction of one.
    expect({ before, during, slow: during.durations.filter((ms) => ms >= 1000) }).toMatchObject({ slow: [] });
    expect(during.p50).toBeLessThan(before.p50 + 250);

    await suite.t.app
      .get(Transactions)
      .run(() =>
        suite.t.app.get(WebhooksRepository).updateEndpoint(ws.workspaceId, endpoint.id, { status: 'DISABLED' }),
      );
    await receiver.close();
    await settled(endpoint.id);
  });

  it('refuses at delivery an endpoint whose URL reaches 127.0.0.1, when private networks are not allowed: no connection, the attempt failed naming the address', async () => {
    const refusing = await anotherApp({ ROLES: 'api,worker', WEBHOOK_RETRY_SCHEDULE: '0,1' }, { own: true });
    const ws = await createWorkspace(refusing.t.http);
    const receiver = await startReceiver();
    const port = receiver.port;
    // Each spelling of the receiver's address, and the name that resolves to it, stored as it was given.
    const urls: [string, RegExp][] = [
      [`http://127.0.0.1:${port}/hooks`, /^the host resolves to 127\.0\.0\.1, /],
      [`http://localhost:${port}/hooks`, /^the host resolves to (127\.0\.0\.1|::1), /],
      [`http://127.1:${port}/hooks`, /^the host resolves to 127\.0\.0\.1, /],
      [`http://0x7f000001:${port}/hooks`, /^the host resolves to 127\.0\.0\.1, /],
      [`http://[::ffff:127.0.0.1]:${port}/hooks`, /^the host resolves to ::ffff:7f00:1, /],
      [`http://0.0.0.0:${port}/hooks`, /^the host resolves to 0\.0\.0\.0, /],
    ];
    const dataSource = refusing.t.app.get(DataSource);
    const endpoints: string[] = [];
    for (const [url] of urls) {
      const id = `whk_test_${randomBytes(8).toString('hex')}`;
      await dataSource.query(
        `INSERT INTO webhook_endpoints (id, workspace_id, member_id, api_key_id, url, event_types, status, secret, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, '{note.created}', 'ENABLED', $6, now(), now())`,
        [id, ws.workspaceId, ws.memberId, ws.apiKeyId, url, receiver.secret],
      );
      endpoints.push(id);
    }
    ok(
      await refusing.t.http
        .post('/v1/notes')
        .set(v1Headers(ws.key))
        .send({ fields: { $title: 'to a private address' } }),
    );

    for (const [index, [url, refusal]] of urls.entries()) {
      const attempts = await settled(endpoints[index], 20_000, refusing.t);
      // Both attempts of the schedule were made, and refused.
      expect({
        url,
        attempts: attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.response_status]),
      }).toEqual({
        url,
        attempts: [
          [1, 'FAILED', null],
          [2, 'FAILED', null],
        ],
      });
      for (const attempt of attempts)
        expect({ url, error: attempt.error }).toEqual({ url, error: expect.stringMatching(refusal) });
    }
    expect(receiver.connections).toBe(0);
  });

  it('delivers a burst of 200 events completely with two instances, making each attempt once', async () => {
    const second = await anotherApp(APP_ENV);
    const ws = await createWorkspace(http());
    const { endpoint, receiver } = await withReceiver(owner(ws), ['note.created']);
    // Answered after a moment: a worker that holds as many attempts as it may leaves the rest to the other.
    receiver.answer({ status: 204, delayMs: 100 });
    const instances = [suite.t, second.t];
    await concurrently(8, async (worker) => {
      for (let i = worker; i < 200; i += 8) {
        ok(
          await instances[i % 2].http
            .post('/v1/notes')
            .set(v1Headers(ws.key))
            .send({ fields: { $title: `burst ${i}` } }),
        );
      }
    });
    await until('200 events to be delivered', hasDelivered(receiver, 200), 60_000);
    const attempts = await settled(endpoint.id);
    await second.close();

    // Every first attempt succeeded, so there was nothing to retry: each event came once, or an attempt was made twice.
    const feed = await feedOf(ws.key);
    expect(feed).toHaveLength(200);
    expect(receiver.rejected).toEqual([]);
    expect(receiver.received.map((hook) => hook.id).sort()).toEqual(feed.map((event) => event.id).sort());
    expect(attempts).toHaveLength(200);
    expect(attempts.filter((attempt) => attempt.attempt !== 1 || attempt.status !== 'SUCCEEDED')).toEqual([]);
    // Both instances made attempts.
    expect(new Set(attempts.map((attempt) => attempt.claimed_by)).size).toBe(2);
  });
});

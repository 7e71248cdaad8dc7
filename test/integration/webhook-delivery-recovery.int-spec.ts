import { Client } from 'pg';
import request from 'supertest';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { concurrently, sleep, until } from '../support/concurrency';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { httpCall, keepSending } from '../support/http-call';
import { ScratchDatabase } from '../support/scratch-database';
import { ServiceProcess } from '../support/service-process';
import { TEST_ADMIN_TOKEN } from '../support/test-app';
import { newWebhookSecret, WebhookReceiver } from '../support/webhook-receiver';

/** What WebhookQueue waits before making again an attempt whose worker is gone: a claim's age (60 s), then its check (each minute, on the queue's schedule), then the job. */
const RECOVERY_WAIT_MS = 150_000;
const ABANDONED = 'the instance making this attempt stopped before it was recorded';

interface Attempt {
  event_id: string;
  attempt: number;
  status: string;
  error: string | null;
}

/**
 * Webhook attempts under way when the service process stops. SIGTERM: the process exits 0 within
 * its deadline, the attempts recorded. SIGKILL in the middle of a burst, with attempts under way at
 * a slow receiver: after a new process starts on the same database, every event committed before
 * the kill is delivered, and the attempts the kill cut off are made again (the receiver may see
 * an event twice: deliveries are at least once, deduplicated by webhook-id).
 */
describe('webhook deliveries across a SIGTERM and a SIGKILL', () => {
  const database = new ScratchDatabase('records_webhook_recovery');
  const services: ServiceProcess[] = [];
  const receivers: WebhookReceiver[] = [];
  let db: Client;
  /** A session of the test's that holds a row lock across the kill. */
  let holder: Client | undefined;

  beforeAll(async () => {
    await database.create();
    db = new Client({ connectionString: database.url });
    await db.connect();
  });
  afterAll(async () => {
    for (const service of services) await service.dispose();
    for (const receiver of receivers) await receiver.close();
    await holder?.end();
    await db?.end();
    await database.drop();
  });

  const start = async (env: Record<string, string> = {}) => {
    const service = await ServiceProcess.start({
      DATABASE_URL: database.url,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      RATE_LIMIT_WRITE: '100000',
      RATE_LIMIT_READ: '100000',
      RATE_LIMIT_SEARCH: '100000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1',
      ...env,
    });
    services.push(service);
    return service;
  };

  const createNote = (service: ServiceProcess, ws: TestWorkspace, title: string) =>
    httpCall(service.baseUrl, {
      method: 'POST',
      path: '/v1/notes',
      headers: { Authorization: `Bearer ${ws.key}`, 'Service-Version': SERVICE_VERSION },
      body: { fields: { $title: title } },
    });

  /** Every event the feed holds (all note.created), read page by page. */
  async function feedOf(service: ServiceProcess, ws: TestWorkspace): Promise<{ id: string; entityId: string }[]> {
    const events: { id: string; entityId: string }[] = [];
    const headers = { Authorization: `Bearer ${ws.key}`, 'Service-Version': SERVICE_VERSION };
    let page = (await httpCall(service.baseUrl, { path: '/v1/events?limit=100', headers })).body;
    while (page.data.length > 0) {
      events.push(...page.data);
      page = (await httpCall(service.baseUrl, { path: `/v1/events?cursor=${page.nextCursor}`, headers })).body;
    }
    return events;
  }

  const startReceiver = async () => {
    const receiver = await WebhookReceiver.start(newWebhookSecret());
    receivers.push(receiver);
    return receiver;
  };

  const addEndpoint = (id: string, ws: TestWorkspace, receiver: WebhookReceiver, eventTypes = ['note.created']) =>
    db.query(
      `INSERT INTO webhook_endpoints (id, workspace_id, member_id, api_key_id, url, event_types, status, secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'ENABLED', $7, now(), now())`,
      [id, ws.workspaceId, ws.memberId, ws.apiKeyId, receiver.url, eventTypes, receiver.secret],
    );

  const attemptsOf = async (endpointId: string) =>
    (
      await db.query<Attempt>(
        `SELECT event_id, attempt, status, error FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY event_id, attempt`,
        [endpointId],
      )
    ).rows;

  it('exits 0 within its deadline on SIGTERM while an attempt waits on a receiver that does not answer, the attempt recorded as cut off', async () => {
    const receiver = await startReceiver();
    receiver.answer({ status: 204, delayMs: 60_000 });
    // What follows the drain has 5 s before the process exits 1: the attempt's 15 s timeout may not be waited for.
    const service = await start({ SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const ws = await createWorkspace(request(service.baseUrl));
    await addEndpoint('whk_test_sigterm', ws, receiver);
    expect((await createNote(service, ws, 'never answered')).status).toBe(200);
    await until('the attempt to be under way', () => receiver.inFlight === 1);

    const signalledAt = Date.now();
    service.signal('SIGTERM');
    const exit = await service.exited;
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(6000);
    expect((await attemptsOf('whk_test_sigterm')).map((row) => [row.attempt, row.status, row.error])).toEqual([
      [1, 'FAILED', 'cut off: the instance making this attempt shut down'],
      [2, 'PENDING', null],
    ]);
    await db.query(`UPDATE webhook_endpoints SET status = 'DISABLED' WHERE id = 'whk_test_sigterm'`);
  });

  it('a worker stopped by SIGTERM finishes the attempts under way and hands over those it took and had not begun: another worker makes the rest, each once', async () => {
    const receiver = await startReceiver();
    receiver.answer({ status: 204, delayMs: 1000 });
    const api = await start({ ROLES: 'api' });
    const worker = await start({ ROLES: 'worker' });
    const ws = await createWorkspace(request(api.baseUrl));
    await addEndpoint('whk_test_worker_sigterm', ws, receiver);
    // More attempts than a worker makes at once (16): some are under way at the signal, the others taken and not begun,
    // or still in the outbox.
    for (let i = 0; i < 40; i++) expect((await createNote(api, ws, `across SIGTERM ${i}`)).status).toBe(200);
    await until('attempts to be under way', () => receiver.inFlight >= 4);

    worker.signal('SIGTERM');
    const exit = await worker.exited;
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    // Each attempt under way was answered (in 1 s, within the 2 s the queue gives them) and recorded; no job stays taken.
    expect(receiver.received.filter((hook) => !hook.answered)).toEqual([]);
    const stopped = await attemptsOf('whk_test_worker_sigterm');
    expect(stopped.filter((row) => row.status === 'SUCCEEDED')).toHaveLength(receiver.received.length);
    expect(stopped.filter((row) => row.status === 'FAILED')).toEqual([]);
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE locked_at IS NOT NULL`)).rows,
    ).toEqual([{ n: 0 }]);

    const next = await start({ ROLES: 'worker' });
    await until(
      'every event to be delivered',
      () => new Set(receiver.delivered.map((hook) => hook.id)).size === 40,
      30_000,
    );
    await until('the last attempts to be recorded', async () =>
      (await attemptsOf('whk_test_worker_sigterm')).every((row) => row.status !== 'PENDING'),
    );
    expect((await attemptsOf('whk_test_worker_sigterm')).map((row) => [row.attempt, row.status])).toEqual(
      Array(40).fill([1, 'SUCCEEDED']),
    );
    expect(receiver.received).toHaveLength(40);
    await db.query(`UPDATE webhook_endpoints SET status = 'DISABLED' WHERE id = 'whk_test_worker_sigterm'`);
    for (const service of [next, api]) {
      service.signal('SIGTERM');
      await service.exited;
    }
  }, 180_000);

  it(
    'delivers every event committed before the kill once a new process runs, making the attempts it cut off again',
    async () => {
      const receiver = await startReceiver();
      receiver.answer({ status: 204, delayMs: 2000 });
      const first = await start();
      const ws = await createWorkspace(request(first.baseUrl));
      await addEndpoint('whk_test_recovery', ws, receiver);

      // An attempt the queue has taken (its job locked) but not yet claimed when the kill strikes: its claim waits on a
      // row lock this session holds (as it may wait for a pooled connection under load). Due a second later, as a retry
      // is, to another endpoint (subscribed to nothing the test writes), so that it is taken only once the row is locked.
      const heldReceiver = await startReceiver();
      await addEndpoint('whk_test_unclaimed', ws, heldReceiver, ['list.created']);
      const held = await createNote(first, ws, 'held');
      const heldEvent = (await db.query<{ id: string }>(`SELECT id FROM events WHERE entity_id = $1`, [held.body.id]))
        .rows[0].id;
      const {
        rows: [{ id: heldAttempt }],
      } = await db.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, attempt, status, scheduled_at, created_at, workspace_id)
       VALUES ('whk_test_unclaimed', $1, 1, 'PENDING', now() + interval '1 second', now(), $2) RETURNING id`,
        [heldEvent, ws.workspaceId],
      );
      holder = new Client({ connectionString: database.url });
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE`, [heldAttempt]);
      await until('the claim of the held attempt to wait on its row', async () => {
        const { rows } = await db.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%SET claimed_by%'`,
        );
        return rows.length === 1;
      });

      // A burst, then a note every 200 ms until the kill (one of them may be in flight when it strikes).
      const burst = await concurrently(4, async (worker) => {
        const made = [];
        for (let i = 0; i < 10; i++) made.push(await createNote(first, ws, `burst ${worker}/${i}`));
        return made;
      });
      const writes = keepSending(1, async (_worker, i) => {
        await sleep(200);
        return createNote(first, ws, `trickle ${i}`);
      });
      // The worker makes 16 attempts at once from the outbox (webhook-fan-out.ts), held 2 s each by the receiver, beside
      // the queue's jobs (the held one).
      await until(
        'some events to be delivered, and 16 attempts to be under way',
        () => receiver.delivered.length >= 8 && receiver.inFlight === 16,
        30_000,
      );
      first.signal('SIGKILL');
      await first.exited;
      await holder.query('ROLLBACK');
      const calls = [...burst.flat(), ...(await writes.stop())];
      // Sent by the killed instance: those it was waiting for when it died, and any it had its answer to but had not recorded.
      const sentBeforeKill = new Set(receiver.received.map((hook) => hook.id));
      const cutOff = new Set(receiver.received.filter((hook) => !hook.answered).map((hook) => hook.id));
      // The 16 under way, but those whose answer came as the kill struck (answered, yet not recorded: made again too).
      expect(cutOff.size).toBeGreaterThan(0);
      expect(cutOff.size).toBeLessThanOrEqual(16);
      receiver.answer({ status: 204 });

      const second = await start();
      const feed = await feedOf(second, ws);
      const committed = feed.map((event) => event.id);
      // Every create that answered 200 is in the feed (and so is one cut off after its commit, if any).
      const created = calls.filter((call) => call.status === 200).map((call) => call.body.id);
      expect(created.length).toBeGreaterThanOrEqual(40);
      const inFeed = new Set(feed.map((event) => event.entityId));
      expect(created.filter((id) => !inFeed.has(id))).toEqual([]);

      const delivered = () => new Set(receiver.delivered.map((hook) => hook.id));
      await until(
        'every committed event to be delivered, and the attempt taken but not claimed to be made',
        () => committed.every((id) => delivered().has(id)) && heldReceiver.delivered.length > 0,
        RECOVERY_WAIT_MS,
      );

      // The attempts the kill cut off were recorded as abandoned, and made again, successfully.
      let rows: Attempt[] = [];
      await until('the last attempts to be recorded', async () =>
        (rows = await attemptsOf('whk_test_recovery')).every((row) => row.status !== 'PENDING'),
      );
      const abandoned = rows.filter((row) => row.error === ABANDONED);
      const abandonedIds = new Set(abandoned.map((row) => row.event_id));
      expect([...cutOff].filter((id) => !abandonedIds.has(id))).toEqual([]);
      // Abandoned too: those it had taken from the outbox and not begun (a worker holds 32 at most, webhook-fan-out.ts).
      expect([...abandonedIds].filter((id) => !sentBeforeKill.has(id)).length).toBeLessThanOrEqual(32);
      for (const row of abandoned) {
        expect(rows.find((next) => next.event_id === row.event_id && next.attempt === row.attempt + 1)).toMatchObject({
          status: 'SUCCEEDED',
        });
      }
      expect(rows.filter((row) => row.status !== 'SUCCEEDED' && row.error !== ABANDONED)).toEqual([]);
      expect(new Set(rows.map((row) => row.event_id))).toEqual(new Set(committed));
      expect(receiver.rejected).toEqual([]);

      // The attempt the killed instance had taken but not claimed was made once.
      expect(heldReceiver.delivered.map((hook) => hook.id)).toEqual([heldEvent]);
      await until('the held attempt to be recorded', async () =>
        (await attemptsOf('whk_test_unclaimed')).every((row) => row.status !== 'PENDING'),
      );
      // Its claim, left waiting on the row by the killed process, may still run once the row is free (PostgreSQL notices
      // a dead client only when it answers it): the attempt is then claimed by the dead instance, recorded as abandoned,
      // and made as attempt 2. Either way the receiver saw it once, above.
      const heldAttempts = (await attemptsOf('whk_test_unclaimed')).map((row) => [row.attempt, row.status, row.error]);
      expect([
        [[1, 'SUCCEEDED', null]],
        [
          [1, 'FAILED', ABANDONED],
          [2, 'SUCCEEDED', null],
        ],
      ]).toContainEqual(heldAttempts);
    },
    RECOVERY_WAIT_MS + 90_000,
  );
});

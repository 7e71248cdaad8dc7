import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Transactions } from '../../src/database/transactions';
import { WebhookQueue } from '../../src/modules/webhooks/webhook-queue';
import { WebhooksRepository } from '../../src/modules/webhooks/webhooks.repository';
import { apiSuite } from '../support/api-suite';
import { ScratchDatabase } from '../support/scratch-database';
import { until } from '../support/concurrency';
import { newWebhookSecret, WebhookReceiver } from '../support/webhook-receiver';

interface Attempt {
  endpoint_id: string;
  attempt: number;
  status: string;
  claimed_by: string | null;
  error: string | null;
}

/**
 * The webhooks' outbox taken by several workers at once, and by one killed mid-way: no row is
 * taken twice, no event's first attempt to an endpoint is made twice, and what a killed worker
 * took is made again by the recovery. The rows the API leaves are due an hour later here (the
 * schedule's first delay), so that the test takes them itself, as the workers would.
 */
describe('the webhooks outbox, taken by several workers', () => {
  // A worker makes what the recovery enqueues again: on a database of its own (see createTestApp).
  const database = new ScratchDatabase('records_fan_out');
  beforeAll(() => database.create());
  const suite = apiSuite({
    env: {
      WEBHOOK_RETRY_SCHEDULE: '3600,0',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ROLES: 'api,worker',
      DATABASE_URL: database.url,
    },
  });
  afterAll(() => database.drop());
  const receivers: WebhookReceiver[] = [];
  let endpoints: string[];

  beforeAll(async () => {
    endpoints = [];
    for (let index = 0; index < 3; index += 1) {
      const receiver = await WebhookReceiver.start(newWebhookSecret());
      receivers.push(receiver);
      const endpoint = await suite.t.app.get(Transactions).run(() =>
        suite.t.app.get(WebhooksRepository).insertEndpoint({
          id: `whk_test_${randomBytes(8).toString('hex')}`,
          workspaceId: suite.ws.workspaceId,
          memberId: suite.ws.memberId,
          apiKeyId: suite.ws.apiKeyId,
          url: receiver.url,
          eventTypes: ['note.created'],
          description: null,
          secret: receiver.secret,
        }),
      );
      endpoints.push(endpoint.id);
    }
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  const query = <T>(sql: string, params: unknown[] = []): Promise<T[]> =>
    suite.t.app.get(DataSource).query(sql, params);

  /** A note's create through the API; answers its event's id. */
  async function createNote(title: string): Promise<string> {
    const created = await suite.post('/v1/notes', { fields: { $title: title } });
    expect(created.status).toBe(200);
    const [event] = await query<{ id: string }>(`SELECT id FROM events WHERE entity_id = $1`, [created.body.id]);
    return event.id;
  }

  /** Takes the outbox's rows of `eventIds`, made due, as the worker `instanceId` would; the live worker is kept off them until then. */
  const take = (eventIds: string[], instanceId: string) =>
    suite.t.app.get(Transactions).run(async () => {
      await query(`UPDATE webhook_outbox SET due_at = now() WHERE event_ids && $1`, [eventIds]);
      return suite.t.app.get(WebhooksRepository).takeOutbox(100, instanceId);
    });

  const attemptsOf = (eventId: string) =>
    query<Attempt>(
      `SELECT endpoint_id, attempt, status, claimed_by, error FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id, attempt`,
      [eventId],
    );
  const deliveredOf = (eventId: string) =>
    receivers.map((receiver) => receiver.delivered.filter((hook) => hook.id === eventId).length);

  it('leaves one row per write, whatever its endpoints, which one of several workers taking at once takes', async () => {
    const eventIds: string[] = [];
    for (let index = 0; index < 20; index += 1) eventIds.push(await createNote(`taken once ${index}`));
    const rows = await query<{ count: number }>(
      `SELECT count(*)::int AS count FROM webhook_outbox WHERE event_ids && $1`,
      [eventIds],
    );
    expect(rows).toEqual([{ count: 20 }]);
    // The rows due at once, in a transaction of their own, then four takers at once, as four workers would.
    await query(`UPDATE webhook_outbox SET due_at = now() WHERE event_ids && $1`, [eventIds]);
    const repository = suite.t.app.get(WebhooksRepository);
    const takes = await Promise.all(
      ['taker-1', 'taker-2', 'taker-3', 'taker-4'].map((instanceId) => repository.takeOutbox(5, instanceId)),
    );
    const attempts = takes.flatMap((taken) => taken.attempts);
    const pairs = attempts.map(({ delivery }) => `${delivery.endpoint_id} ${delivery.event_id}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    const ours = attempts.filter(({ delivery }) => eventIds.includes(delivery.event_id));
    // The live worker may have taken some as they came due (its take may still be committing): those it makes; the
    // rest are the takers'.
    const made = () =>
      query<{ count: number }>(
        `SELECT count(DISTINCT (endpoint_id, event_id))::int AS count FROM webhook_deliveries WHERE event_id = ANY($1) AND attempt = 1`,
        [eventIds],
      );
    await until('every first attempt to exist', async () => (await made())[0].count >= 60);
    expect(await made()).toEqual([{ count: 60 }]);
    expect(ours.length).toBeLessThanOrEqual(60);
    expect(await query(`SELECT id FROM webhook_outbox WHERE event_ids && $1`, [eventIds])).toEqual([]);
    // What the takers claimed and left is the recovery's: recorded as cut off, made again.
    await query(
      `UPDATE webhook_deliveries SET claimed_at = claimed_at - interval '2 minutes' WHERE claimed_by LIKE 'taker-%'`,
    );
    expect(await suite.t.app.get(WebhookQueue).recoverAbandoned()).toBe(ours.length);
    await until('every event delivered to every endpoint', () =>
      eventIds.every((eventId) => deliveredOf(eventId).every((count) => count === 1)),
    );
  });

  it('leaves what a killed worker took to the recovery, which has it made again: nothing lost, no first attempt twice', async () => {
    const eventId = await createNote('fanned out by a worker that was killed');
    // The killed worker's take: the row gone, its attempts inserted, claimed, and never made.
    const taken = await take([eventId], 'killed-test-instance');
    expect(taken.attempts.map(({ delivery }) => delivery.event_id)).toEqual([eventId, eventId, eventId]);
    expect(await query(`SELECT id FROM webhook_outbox WHERE $1 = ANY(event_ids)`, [eventId])).toEqual([]);
    expect((await attemptsOf(eventId)).map((attempt) => [attempt.attempt, attempt.status, attempt.claimed_by])).toEqual(
      endpoints.map(() => [1, 'PENDING', 'killed-test-instance']),
    );
    expect(deliveredOf(eventId)).toEqual([0, 0, 0]);

    // A minute later, the recovery finds the killed worker's claims (its liveness lock is free) and has them made again.
    await query(
      `UPDATE webhook_deliveries SET claimed_at = claimed_at - interval '2 minutes' WHERE claimed_by = 'killed-test-instance'`,
    );
    expect(await suite.t.app.get(WebhookQueue).recoverAbandoned()).toBe(3);
    await until('the attempts made again to be delivered', () => deliveredOf(eventId).every((count) => count === 1));
    await until('the attempts made again to be recorded', async () =>
      (await attemptsOf(eventId)).every((attempt) => attempt.status !== 'PENDING'),
    );
    const attempts = await attemptsOf(eventId);
    expect(attempts.map((attempt) => [attempt.endpoint_id, attempt.attempt, attempt.status])).toEqual(
      [...endpoints].sort().flatMap((endpoint) => [
        [endpoint, 1, 'FAILED'],
        [endpoint, 2, 'SUCCEEDED'],
      ]),
    );
    expect(attempts.filter((attempt) => attempt.attempt === 1).map((attempt) => attempt.error)).toEqual(
      endpoints.map(() => 'the instance making this attempt stopped before it was recorded'),
    );
    expect(deliveredOf(eventId)).toEqual([1, 1, 1]);
  });
});

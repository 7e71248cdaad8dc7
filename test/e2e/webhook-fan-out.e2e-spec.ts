import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Transactions } from '../../src/database/transactions';
import { WebhookFanOut } from '../../src/modules/webhooks/webhook-fan-out';
import { WebhookQueue } from '../../src/modules/webhooks/webhook-queue';
import { FanOutPayload, WebhooksRepository } from '../../src/modules/webhooks/webhooks.repository';
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
 * A write's fan-out job run again, as after its worker was killed mid-way: it never makes an
 * event's first attempt to an endpoint twice, and what the killed run had claimed is made again
 * by the recovery. The jobs the API enqueues are due an hour later here (the schedule's first
 * delay), so that the test runs the fan-out itself, as the queue would.
 */
describe('webhook fan-out run again', () => {
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

  /** A note's create through the API, and the payload of the fan-out job it enqueued. */
  async function createNote(title: string): Promise<FanOutPayload> {
    const created = await suite.post('/v1/notes', { fields: { $title: title } });
    expect(created.status).toBe(200);
    const [event] = await query<{ id: string }>(`SELECT id FROM events WHERE entity_id = $1`, [created.body.id]);
    return {
      workspaceId: suite.ws.workspaceId,
      eventIds: [event.id],
      types: ['note.created'],
      writtenAt: new Date().toISOString(),
    };
  }

  const attemptsOf = (eventId: string) =>
    query<Attempt>(
      `SELECT endpoint_id, attempt, status, claimed_by, error FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id, attempt`,
      [eventId],
    );
  const deliveredOf = (eventId: string) =>
    receivers.map((receiver) => receiver.delivered.filter((hook) => hook.id === eventId).length);

  it('makes each first attempt once when the job runs twice', async () => {
    const payload = await createNote('fanned out twice');
    const fanOut = suite.t.app.get(WebhookFanOut);
    await fanOut.run(payload, 'fan-out-test-instance', new AbortController().signal);
    await fanOut.run(payload, 'fan-out-test-instance', new AbortController().signal);
    expect(deliveredOf(payload.eventIds[0])).toEqual([1, 1, 1]);
    const attempts = await attemptsOf(payload.eventIds[0]);
    expect(attempts.map((attempt) => [attempt.endpoint_id, attempt.attempt, attempt.status])).toEqual(
      [...endpoints].sort().map((endpoint) => [endpoint, 1, 'SUCCEEDED']),
    );
  });

  it('leaves what a killed run claimed to the recovery, which has it made again: nothing lost, no first attempt twice', async () => {
    const payload = await createNote('fanned out by an instance that was killed');
    const [eventId] = payload.eventIds;
    // The killed run: its attempts inserted, claimed, and never made.
    const claimed = await suite.t.app.get(WebhooksRepository).expandFanOut(payload, 'killed-test-instance');
    expect(claimed).toHaveLength(3);
    // The job run again by a live instance makes none of them, and adds none.
    await suite.t.app.get(WebhookFanOut).run(payload, 'fan-out-test-instance', new AbortController().signal);
    expect((await attemptsOf(eventId)).map((attempt) => [attempt.attempt, attempt.status, attempt.claimed_by])).toEqual(
      endpoints.map(() => [1, 'PENDING', 'killed-test-instance']),
    );
    expect(deliveredOf(eventId)).toEqual([0, 0, 0]);

    // A minute later, the recovery finds the killed instance's claims (its liveness lock is free) and has them made again.
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

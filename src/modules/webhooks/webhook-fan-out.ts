import { Injectable, OnModuleInit } from '@nestjs/common';
import { ChangeEvents } from '../../records/change-events';
import { EventBodies, WebhookDeliveries } from './webhook-deliveries';
import { FanOutPayload, WebhooksRepository } from './webhooks.repository';

/**
 * Attempts one fan-out job makes at once: most of an attempt is waiting on a receiver, and the
 * queue runs several jobs at once (WebhookQueue), each on the service's database pool.
 */
const ATTEMPTS_AT_ONCE = 8;

function payloadOf(raw: unknown): FanOutPayload {
  const payload = raw as Partial<FanOutPayload> | null;
  const texts = (value: unknown): value is string[] =>
    Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (
    typeof payload?.workspaceId !== 'string' ||
    !texts(payload.eventIds) ||
    !texts(payload.types) ||
    payload.eventIds.length !== payload.types.length ||
    typeof payload.writtenAt !== 'string'
  ) {
    throw new Error(`A ${JSON.stringify(raw).slice(0, 200)} is no fan-out job's payload`);
  }
  return payload as FanOutPayload;
}

/**
 * Webhook fan-out, off the write path (docs/api.md §13): a write appends its events and, when an
 * enabled endpoint subscribes to one of them, one job (WebhooksRepository.followSql, registered
 * here with the events' append). The queue runs the job (WebhookQueue): it inserts the first
 * attempt of each event to each endpoint subscribed to it, claimed by this instance, and makes
 * them, a few at once, each body read once per event and API key.
 *
 * Nothing is lost or made twice when a job runs again: an attempt already inserted is not
 * inserted again; the ones an earlier run of this instance claimed and left PENDING are made now;
 * those a stopped instance claimed are made again by the recovery (WebhookQueue), which also
 * releases the job a killed instance held.
 */
@Injectable()
export class WebhookFanOut implements OnModuleInit {
  constructor(
    private readonly events: ChangeEvents,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveries,
  ) {}

  onModuleInit(): void {
    this.events.follow(this.webhooks);
  }

  /**
   * Runs one fan-out job. Once `shutdown` aborts, the attempts not begun are recorded as not made,
   * each with the next attempt due at once (a job of its own, for whichever worker runs next).
   *
   * An attempt whose making throws is recorded as failed, its next one due on the schedule, as a
   * delivery job's is (WebhookDeliveries.failedUnexpectedly): the schedule is the only retry of an
   * attempt. Only the expansion itself throws, so that the queue runs the job again (it inserts
   * only the attempts still missing).
   */
  async run(rawPayload: unknown, instanceId: string, shutdown: AbortSignal): Promise<void> {
    const claimed = await this.webhooks.expandFanOut(payloadOf(rawPayload), instanceId);
    const bodies = new EventBodies(this.deliveries);
    const successes = this.deliveries.successBatch();
    let next = 0;
    const makeInTurn = async () => {
      while (next < claimed.length) {
        const { delivery, endpoint } = claimed[next++];
        const making = shutdown.aborted
          ? this.deliveries.notMade(delivery, endpoint)
          : this.deliveries.make(delivery, endpoint, bodies, shutdown, successes);
        await making.catch((error: unknown) => this.deliveries.failedUnexpectedly(delivery.id, error));
      }
    };
    await Promise.all(Array.from({ length: Math.min(ATTEMPTS_AT_ONCE, claimed.length) }, makeInTurn));
    await successes.flush();
  }
}

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { setMaxListeners } from 'node:events';
import { JobQueue } from '../../common/background/job-queue';
import { ChangeEvents } from '../../records/change-events';
import { EventBodies, SucceededAttempts, WebhookDeliveries } from './webhook-deliveries';
import { DeliveryRow, WebhookEndpointRow, WebhooksRepository } from './webhooks.repository';

/** Rows of the outbox (writes) one take removes at most. */
const WRITES_AT_ONCE = 100;
/** Attempts a worker makes at once: most of an attempt is waiting on a receiver. */
const ATTEMPTS_AT_ONCE = 16;
/**
 * Attempts taken and not yet made past which a worker takes no more rows until some are made:
 * the rest are left to the other workers, and a slow receiver holds back only this many.
 */
const ATTEMPTS_HELD = 2 * ATTEMPTS_AT_ONCE;
/**
 * How long an idle worker waits for the appends' signal before it looks again anyway: nothing
 * signals a row that comes due later than it was written (the schedule's first delay), one
 * written while the signal's session was being connected again, or one whose signal was lost.
 */
const IDLE_LOOK_MS = 1000;
/** How long a worker waits after a take that failed (the database lost) before the next. */
const FAILED_TAKE_PAUSE_MS = 1000;
/**
 * How long a worker that drained the outbox, once notified, waits for the writes that follow
 * before it takes: a take costs about as much whatever it holds, and a trickle of writes, each
 * notifying, would otherwise be taken one or two at a time.
 */
const GATHER_MS = 25;

/**
 * Resolves after `ms`, when `signal` aborts, or when the function handed to `early` is called. A
 * timer of its own rather than an aborted timers/promises sleep: each abort makes an AbortError,
 * and a busy worker is woken once per attempt made.
 */
function pause(ms: number, signal: AbortSignal, early?: (end: () => void) => void): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const end = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', end);
      resolve();
    };
    const timer = setTimeout(end, ms);
    signal.addEventListener('abort', end, { once: true });
    early?.(end);
  });
}

/** Rings whoever waits on it; a ring while nobody waits is kept for the next wait. */
class Doorbell {
  private rung = false;
  private answer?: () => void;

  ring(): void {
    this.rung = true;
    this.answer?.();
  }

  /** Forgets the rings so far: what they announced is about to be looked at. */
  forget(): void {
    this.rung = false;
  }

  /** Resolves at a ring since the last `forget`, after `ms`, or when `signal` aborts. */
  async wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.rung) return;
    await pause(ms, signal, (end) => (this.answer = end));
    this.answer = undefined;
  }
}

/** An attempt taken from the outbox, with the bodies of the attempts taken with it. */
interface TakenAttempt {
  delivery: DeliveryRow;
  endpoint: WebhookEndpointRow;
  bodies: EventBodies;
}

/**
 * Webhook fan-out, off the write path (docs/api.md §13): a write appends its events and, when an
 * enabled endpoint subscribes to one of them, one row of the outbox (WebhooksRepository.followSql,
 * registered here with the events' append). Each worker drains the outbox beside its jobs: it
 * removes a batch of rows due and inserts their first attempts, claimed by itself, in one
 * statement (WebhooksRepository.takeOutbox), and makes them ATTEMPTS_AT_ONCE at a time, each body
 * read once per event and API key, the successes recorded together. It takes again at once while
 * a take comes back full and it holds fewer than ATTEMPTS_HELD attempts; having drained the
 * outbox, it waits for the appends' signal (ChangeEvents.onAppended), then GATHER_MS more.
 *
 * Nothing is lost or made twice: rows a worker is taking are passed over by the others, and the
 * attempts exist before their rows are gone; a worker that stops before making them hands them over
 * to the others, or, killed, leaves them claimed, and the recovery (WebhookQueue) has them made again.
 */
@Injectable()
export class WebhookFanOut implements OnModuleInit {
  private readonly logger = new Logger('WebhookFanOut');

  constructor(
    private readonly events: ChangeEvents,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveries,
    private readonly queue: JobQueue,
  ) {}

  onModuleInit(): void {
    this.events.follow(this.webhooks);
    this.queue.alongside('webhook fan-out', (instanceId, stopping, shutdown) =>
      this.drain(instanceId, stopping, shutdown),
    );
  }

  /**
   * Drains the outbox until `stopping` aborts (the worker stops); see the class. Then the
   * attempts taken and not begun are handed over, each a delivery job due at once for whichever
   * worker runs next, and those under way are awaited (`shutdown` cuts them off).
   */
  async drain(instanceId: string, stopping: AbortSignal, shutdown: AbortSignal): Promise<void> {
    // Each attempt under way listens to `shutdown` (to be cut off), beyond node's default warning at 10.
    setMaxListeners(ATTEMPTS_AT_ONCE + 1, shutdown);
    const work = new Doorbell();
    const slots = new Doorbell();
    // The outbox is written only with events appended: the appends' signal is its signal.
    const unsubscribe = this.events.onAppended(() => work.ring());
    const successes = this.deliveries.successBatch();
    const ready: TakenAttempt[] = [];
    const underWay = new Set<Promise<void>>();
    const makeReady = () => {
      while (underWay.size < ATTEMPTS_AT_ONCE && ready.length > 0) {
        const making = this.make(ready.shift()!, shutdown, successes).finally(() => {
          underWay.delete(making);
          slots.ring();
          if (!stopping.aborted) makeReady();
        });
        underWay.add(making);
      }
    };
    try {
      while (!stopping.aborted) {
        if (ready.length + underWay.size >= ATTEMPTS_HELD) {
          slots.forget();
          await slots.wait(IDLE_LOOK_MS, stopping);
          continue;
        }
        work.forget();
        const taken = await this.take(instanceId, stopping);
        if (!taken) continue;
        const bodies = this.deliveries.bodiesOf(taken.attempts);
        ready.push(...taken.attempts.map((attempt) => ({ ...attempt, bodies })));
        makeReady();
        // Fewer rows than it may take: the outbox had no more due. The next take waits for new ones.
        if (taken.writes < WRITES_AT_ONCE) {
          await work.wait(IDLE_LOOK_MS, stopping);
          await pause(GATHER_MS, stopping);
        }
      }
    } finally {
      unsubscribe();
      await this.handOver(ready.splice(0), instanceId);
      await Promise.all(underWay);
      await successes.flush();
    }
  }

  /** One take of the outbox; undefined when it failed (logged, after a pause). */
  private async take(instanceId: string, stopping: AbortSignal) {
    try {
      return await this.webhooks.takeOutbox(WRITES_AT_ONCE, instanceId);
    } catch (error) {
      this.logger.error({ err: error }, `taking the webhook outbox failed; trying again in ${FAILED_TAKE_PAUSE_MS} ms`);
      await pause(FAILED_TAKE_PAUSE_MS, stopping);
      return undefined;
    }
  }

  /**
   * Makes one attempt taken from the outbox. One whose making throws is recorded as failed, its
   * next one due on the schedule, as a delivery job's is (WebhookDeliveries.failedUnexpectedly):
   * the schedule is the only retry.
   */
  private async make(
    { delivery, endpoint, bodies }: TakenAttempt,
    shutdown: AbortSignal,
    successes: SucceededAttempts,
  ): Promise<void> {
    await this.deliveries
      .make(delivery, endpoint, bodies, shutdown, successes)
      .catch((error: unknown) => this.deliveries.failedUnexpectedly(delivery.id, error));
  }

  /** Hands over attempts taken and not begun (see drain); if that fails, they keep their claim, which the recovery finds once this worker is gone. */
  private async handOver(attempts: TakenAttempt[], instanceId: string): Promise<void> {
    if (attempts.length === 0) return;
    await this.webhooks
      .handOver(
        attempts.map(({ delivery }) => delivery.id),
        instanceId,
      )
      .catch((error: unknown) =>
        this.logger.error(
          { err: error },
          `${attempts.length} webhook attempts could not be handed over; the recovery makes them`,
        ),
      );
  }
}

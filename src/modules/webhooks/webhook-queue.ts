import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { Logger as QueueLogger, run, runMigrations, type Runner, type WorkerEvents } from 'graphile-worker';
import { PeriodicTask } from '../../common/background/periodic-task';
import { OwnConnections, type OwnPool } from '../../database/own-connections';
import { SessionLock, SessionLocks } from '../../database/session-locks';
import { Transactions } from '../../database/transactions';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookFanOut } from './webhook-fan-out';
import { FAN_OUT_TASK, WebhooksRepository } from './webhooks.repository';

/** Attempts one instance makes at once: most of an attempt is waiting on a receiver. */
const CONCURRENCY = 8;
/** The queue's connections: its workers' plus the poller's and the recovery's (graphile-worker's default). */
const QUEUE_POOL_SIZE = 10;
/**
 * An attempt ends within the 15 s timeout, and is claimed within moments of its job being taken:
 * a claim or a taken job this old whose instance is gone was cut off.
 */
const STALE_CLAIM_MS = 60_000;
const RECOVERY_INTERVAL_MS = 30_000;
/**
 * At shutdown, how long the attempts under way may go on before they are cut off (and recorded
 * as failed, the next attempt due): what follows the service's HTTP drain has 5 s in all (main.ts),
 * and an attempt may otherwise wait for its receiver up to its 15 s timeout.
 */
const SHUTDOWN_CUT_OFF_MS = 2000;

const livenessLock = (instanceId: string) => `webhook-queue-instance:${instanceId}`;

/**
 * Webhook deliveries on graphile-worker, a PostgreSQL-backed job queue, in every instance (the
 * embedded default too): its schema is installed at start-up, and each PENDING attempt is a job
 * (enqueued by the trigger on `webhook_deliveries`, in the transaction that made the attempt due),
 * which one instance runs at a time.
 *
 * graphile-worker hands a job whose worker died to another only after four hours. So each
 * instance is named after its worker pool, whose id graphile-worker marks each job it takes with
 * (`locked_by`); it holds a session-level lock of that name for its life, and marks the attempts
 * it makes as claimed by it (WebhookDeliveries). Every 30 s, an instance that finds an attempt
 * claimed, or a job taken, for over a minute by an instance whose lock is free (a process that
 * died: PostgreSQL released the lock with its connection) records the claimed attempts as failed
 * and makes their next ones due at once, then releases that instance's jobs: an attempt whose job
 * it had taken but not yet claimed is made by whichever instance takes the job next; the jobs of
 * the attempts recorded as failed find them no longer PENDING.
 */
@Injectable()
export class WebhookQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookQueue');
  /** Its worker pool's id, known once run() has made the pool (see above). */
  private instanceId?: string;
  private readonly recovery = new PeriodicTask(() => this.recoverAbandoned(), this.logger, 'webhook attempt recovery');
  private runner?: Runner;
  private liveness?: SessionLock;
  private pool?: OwnPool;

  constructor(
    private readonly deliveries: WebhookDeliveries,
    private readonly fanOut: WebhookFanOut,
    private readonly webhooks: WebhooksRepository,
    private readonly transactions: Transactions,
    private readonly locks: SessionLocks,
    private readonly connections: OwnConnections,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Made and ended here rather than by graphile-worker, which ends a pool it makes without awaiting it, its error handler already removed.
    this.pool = this.connections.pool('webhook queue', QUEUE_POOL_SIZE);
    try {
      await this.start(this.pool);
    } catch (error) {
      await this.runner?.stop();
      await this.pool.end();
      throw error;
    }
    this.recovery.start(RECOVERY_INTERVAL_MS);
  }

  private async start(pgPool: OwnPool): Promise<void> {
    const logger = new QueueLogger(() => (level: string, message: string) => {
      if (level === 'error') this.logger.error(message);
      else if (level === 'warning') this.logger.warn(message);
    });
    await runMigrations({ pgPool, logger });
    const events: WorkerEvents = new EventEmitter();
    // Emitted as run() makes the worker pool, before any of its workers takes a job.
    events.once('pool:create', ({ workerPool }) => (this.instanceId = workerPool.id));
    this.runner = await run({
      pgPool,
      concurrency: CONCURRENCY,
      noHandleSignals: true,
      pollInterval: 1000,
      gracefulShutdownAbortTimeout: SHUTDOWN_CUT_OFF_MS,
      // Unbatched (the default), a job's completion is sent without being awaited, so stop() could
      // resolve before it was (and the pool end under it); batched, stop() awaits the batch's flush.
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      events,
      logger,
      taskList: {
        webhook_delivery: async (payload, helpers) => {
          await this.deliveries.attempt(String((payload as { deliveryId: unknown }).deliveryId), this.instanceId!, helpers.abortSignal);
        },
        [FAN_OUT_TASK]: (payload, helpers) => this.fanOut.run(payload, this.instanceId!, helpers.abortSignal),
      },
    });
    // Taken as the pool starts: the recovery acts only on claims and jobs a minute old.
    this.liveness = await this.locks.claim(livenessLock(this.instanceId!));
  }

  /**
   * Before any module's onApplicationShutdown: the pool (TypeORM's, closed in its own) and the
   * session of the liveness lock (SessionLocks') must outlive the attempts under way, which record
   * their outcome. Both modules are global, as this one is, and Nest gives no order among them.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.recovery.stop();
    // Takes no new job, lets the attempts under way finish (those still waiting after SHUTDOWN_CUT_OFF_MS are cut off), and releases the queue's jobs.
    await this.runner?.stop();
    await this.pool?.end();
    await this.liveness?.release();
  }

  /**
   * Finds the attempts and jobs that instances which stopped had under way, and has them made
   * again; answers how many attempts were recorded as abandoned and jobs released.
   */
  async recoverAbandoned(): Promise<number> {
    let recovered = 0;
    const before = new Date(Date.now() - STALE_CLAIM_MS);
    const instances = new Set([...(await this.webhooks.staleClaimants(before)), ...(await this.webhooks.deliveryJobHoldersSince(before))]);
    for (const instanceId of instances) {
      if (instanceId === this.instanceId) continue;
      const lock = await this.locks.claim(livenessLock(instanceId));
      if (!lock) continue;
      try {
        // The claimed attempts are recorded before the jobs are released, in one transaction: a released job never makes an attempt that was cut off again unrecorded.
        recovered += await this.transactions.run(async () => (await this.webhooks.requeueClaimsOf(instanceId)) + (await this.webhooks.releaseDeliveryJobsOf(instanceId)));
      } finally {
        await lock.release();
      }
    }
    return recovered;
  }
}

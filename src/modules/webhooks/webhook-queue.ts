import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../../common/background/job-queue';
import { AppConfig } from '../../config/app-config';
import { SessionLocks } from '../../database/session-locks';
import { Transactions } from '../../database/transactions';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhooksRepository } from './webhooks.repository';

/**
 * An attempt ends within the 15 s timeout, and is claimed within moments of its job being taken:
 * a claim or a taken job this old whose worker is gone was cut off; a PENDING attempt due this
 * long ago whose job is gone or failed for good was dropped.
 */
const STALE_MS = 60_000;
/** Attempts removed from the delivery log per statement. */
const RETENTION_BATCH = 5000;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Webhook deliveries on the job queue (JobQueue): each PENDING attempt is a job (enqueued by the
 * trigger on `webhook_deliveries`, in the transaction that made the attempt due), which one worker
 * runs once (`max_attempts` 1: the only retries are WEBHOOK_RETRY_SCHEDULE's).
 *
 * An attempt whose making throws (a bug, the database lost mid-attempt) is recorded as failed, the
 * next one due on the schedule; if even that fails, its claim is let go and the recovery below
 * enqueues it again (WebhookDeliveries.failedUnexpectedly).
 *
 * graphile-worker hands a job whose worker died to another only after four hours. So a worker
 * marks the attempts it makes as claimed by it (WebhookDeliveries), under the id its jobs are
 * locked by, whose liveness lock it holds (JobQueue). Every minute, one worker looks for attempts
 * claimed, or jobs taken, over a minute ago by a worker whose lock is free (a process that died:
 * PostgreSQL released the lock with its connection): it records the claimed attempts as failed
 * and makes their next ones due at once, then releases that worker's jobs: an attempt whose job
 * it had taken but not yet claimed is made by whichever worker takes the job next; the jobs of
 * the attempts recorded as failed find them no longer PENDING.
 */
@Injectable()
export class WebhookQueue implements OnModuleInit {
  constructor(
    private readonly queue: JobQueue,
    private readonly deliveries: WebhookDeliveries,
    private readonly webhooks: WebhooksRepository,
    private readonly transactions: Transactions,
    private readonly locks: SessionLocks,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queue.register('webhook_delivery', (payload, shutdown) =>
      this.attempt(String((payload as { deliveryId: unknown }).deliveryId), shutdown),
    );
    this.queue.schedule({
      task: 'webhook_recovery',
      what: 'webhook attempt recovery',
      when: '* * * * *',
      run: () => this.recoverAbandoned(),
    });
    this.queue.schedule({
      task: 'webhook_delivery_retention',
      what: 'delivery log retention',
      when: '30 * * * *',
      run: () => this.pruneLog(),
    });
  }

  private async attempt(deliveryId: string, shutdown: AbortSignal): Promise<void> {
    await this.deliveries
      .attempt(deliveryId, this.queue.instanceId!, shutdown)
      .catch((error: unknown) => this.deliveries.failedUnexpectedly(deliveryId, error));
  }

  /**
   * Finds the attempts and jobs that workers which stopped had under way, and the attempts whose
   * job is gone, and has them made again; answers how many attempts were recorded as abandoned,
   * jobs released and attempts enqueued again.
   */
  async recoverAbandoned(): Promise<number> {
    const before = new Date(Date.now() - STALE_MS);
    let recovered = await this.webhooks.enqueueDroppedAttempts(before);
    const instances = new Set([
      ...(await this.webhooks.staleClaimants(before)),
      ...(await this.webhooks.deliveryJobHoldersSince(before)),
    ]);
    for (const instanceId of instances) {
      if (instanceId === this.queue.instanceId) continue;
      const lock = await this.locks.claim(JobQueue.livenessLock(instanceId));
      if (!lock) continue;
      try {
        // The claimed attempts are recorded before the jobs are released, in one transaction: a released job never makes an attempt that was cut off again unrecorded.
        recovered += await this.transactions.run(
          async () =>
            (await this.webhooks.requeueClaimsOf(instanceId)) + (await this.webhooks.releaseDeliveryJobsOf(instanceId)),
        );
      } finally {
        await lock.release();
      }
    }
    return recovered;
  }

  /** Removes the attempts made more than WEBHOOK_DELIVERY_RETENTION_DAYS ago, in batches; answers how many. */
  async pruneLog(): Promise<number> {
    const before = new Date(Date.now() - this.config.webhooks.deliveryRetentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const removed = await this.webhooks.pruneDeliveries(before, RETENTION_BATCH);
      total += removed;
      if (removed < RETENTION_BATCH) return total;
    }
  }
}

import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '../../common/background/periodic-task';
import { AppConfig } from '../../config/app-config';
import { EventsRepository } from '../../records/events.repository';

const BATCH = 5000;
const INTERVAL_MS = 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Removes change events older than EVENT_RETENTION_DAYS (docs/api.md §12), at start-up and then
 * hourly, in every instance: deletes of one batch are idempotent, so instances need no turns.
 */
@Injectable()
export class EventPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task = new PeriodicTask(() => this.pruneAll(), new Logger('EventPruner'), 'event pruning');

  constructor(
    private readonly events: EventsRepository,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(INTERVAL_MS, { now: true });
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Removes every event past retention; answers how many. One run at a time per instance. */
  prune(): Promise<number> {
    return this.task.run();
  }

  private async pruneAll(): Promise<number> {
    const before = new Date(Date.now() - this.config.eventRetentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const removed = await this.events.prune(before, BATCH);
      total += removed;
      if (removed < BATCH) return total;
    }
  }
}

import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../../common/background/job-queue';
import { AppConfig } from '../../config/app-config';
import { ChangeEvents } from '../../records/change-events';

const BATCH = 5000;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Removes change events older than EVENT_RETENTION_DAYS (docs/api.md §12), hourly, by one of the
 * workers (JobQueue's schedule), in batches.
 */
@Injectable()
export class EventPruner implements OnModuleInit {
  constructor(
    private readonly events: ChangeEvents,
    private readonly config: AppConfig,
    private readonly queue: JobQueue,
  ) {}

  onModuleInit(): void {
    this.queue.schedule({ task: 'event_retention', what: 'event pruning', when: '0 * * * *', run: () => this.prune() });
  }

  /** Removes every event past retention; answers how many. */
  async prune(): Promise<number> {
    const before = new Date(Date.now() - this.config.eventRetentionDays * DAY_MS);
    let total = 0;
    for (;;) {
      const removed = await this.events.prune(before, BATCH);
      total += removed;
      if (removed < BATCH) return total;
    }
  }
}

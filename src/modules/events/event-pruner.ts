import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
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
  private readonly logger = new Logger('EventPruner');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly events: EventsRepository,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const run = () => void this.prune().catch((error: unknown) => this.logger.error({ err: error }, 'event pruning failed'));
    run();
    this.timer = setInterval(run, INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Removes every event past retention; answers how many. One run at a time per instance. */
  prune(): Promise<number> {
    this.running ??= this.pruneAll().finally(() => (this.running = undefined));
    return this.running;
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

import type { Logger } from '@nestjs/common';

/**
 * Background work an instance repeats (the file sweep, event pruning): one run at a time, run on
 * demand or every `intervalMs`, and awaited when the instance shuts down, so that nothing is cut
 * off half-way by the pool closing. The timer does not keep the process alive.
 */
export class PeriodicTask<T> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;

  constructor(
    private readonly work: () => Promise<T>,
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  /** Runs now unless a run is under way, which it then answers. */
  run(): Promise<T> {
    this.running ??= this.work().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Runs every `intervalMs` (and once now when `now`); a failed run is logged, the next one comes. */
  start(intervalMs: number, { now = false } = {}): void {
    const run = () => void this.run().catch((error: unknown) => this.logger.error({ err: error }, `${this.what} failed`));
    if (now) run();
    this.timer = setInterval(run, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }
}

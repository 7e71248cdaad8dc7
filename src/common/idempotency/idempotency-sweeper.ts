import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** Deletes stored responses past their 24 hours, every 10 minutes, on every instance. */
@Injectable()
export class IdempotencySweeper implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(private readonly stored: IdempotencyRepository) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Returns how many responses it deleted. */
  sweep(): Promise<number> {
    return this.stored.deleteExpired();
  }
}

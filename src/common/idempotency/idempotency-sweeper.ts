import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../background/job-queue';
import { IdempotencyRepository } from './idempotency.repository';

/** Deletes stored responses past their 24 hours, every 10 minutes, by one of the workers (JobQueue's schedule; a failed run is logged there). */
@Injectable()
export class IdempotencySweeper implements OnModuleInit {
  constructor(
    private readonly stored: IdempotencyRepository,
    private readonly queue: JobQueue,
  ) {}

  onModuleInit(): void {
    this.queue.schedule({
      task: 'idempotency_sweep',
      what: 'idempotency sweep',
      when: '*/10 * * * *',
      run: () => this.sweep(),
    });
  }

  /** Returns how many responses it deleted. */
  sweep(): Promise<number> {
    return this.stored.deleteExpired();
  }
}

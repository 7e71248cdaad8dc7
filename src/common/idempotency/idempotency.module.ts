import { Global, Module } from '@nestjs/common';
import { JobQueueModule } from '../background/job-queue.module';
import { IdempotencySweeper } from './idempotency-sweeper';
import { IdempotencyRepository } from './idempotency.repository';
import { PreparedWrites } from './prepared-writes';

/**
 * Global: `@Endpoint` puts the idempotency interceptor on the write routes of every module, and
 * each of those modules builds it with these providers.
 */
@Global()
@Module({
  imports: [JobQueueModule],
  providers: [IdempotencyRepository, IdempotencySweeper, PreparedWrites],
  exports: [IdempotencyRepository, PreparedWrites],
})
export class IdempotencyModule {}

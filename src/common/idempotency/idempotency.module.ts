import { Module } from '@nestjs/common';
import { JobQueueModule } from '../background/job-queue.module';
import { IdempotencySweeper } from './idempotency-sweeper';
import { IdempotencyRepository } from './idempotency.repository';
import { PreparedWrites } from './prepared-writes';

/**
 * Imported by each module whose controllers have write routes: `@Endpoint` puts the idempotency
 * interceptor on them, and Nest builds an interceptor in its controller's module from what that
 * module imports, so the repository the interceptor reads is exported with it.
 */
@Module({
  imports: [JobQueueModule],
  providers: [IdempotencyRepository, IdempotencySweeper, PreparedWrites],
  exports: [IdempotencyRepository, PreparedWrites],
})
export class IdempotencyModule {}

import { Module } from '@nestjs/common';
import { JobQueueModule } from '../background/job-queue.module';
import { IdempotencySweeper } from './idempotency-sweeper';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotentRequests } from './idempotent-requests';
import { PreparedWrites } from './prepared-writes';

/**
 * Imported by each module whose controllers have write routes: `@Endpoint` puts the idempotency
 * interceptor on them, and Nest builds an interceptor in its controller's module from what that
 * module imports, so IdempotentRequests, which the interceptor hands writes to, is exported with
 * it. The stored responses' repository stays inside.
 */
@Module({
  imports: [JobQueueModule],
  providers: [IdempotencyRepository, IdempotentRequests, IdempotencySweeper, PreparedWrites],
  exports: [IdempotentRequests, PreparedWrites],
})
export class IdempotencyModule {}

import { Global, Module } from '@nestjs/common';
import { IdempotencySweeper } from './idempotency-sweeper';
import { IdempotencyRepository } from './idempotency.repository';

/**
 * Global: `@Endpoint` puts the idempotency interceptor on the write routes of every module, and
 * each of those modules builds it with this repository.
 */
@Global()
@Module({ providers: [IdempotencyRepository, IdempotencySweeper], exports: [IdempotencyRepository] })
export class IdempotencyModule {}

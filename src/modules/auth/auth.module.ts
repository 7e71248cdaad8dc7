import { Module } from '@nestjs/common';
import { ApiKeysRepository } from '../../common/auth/api-keys.repository';
import { AuthController } from './auth.controller';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

/** Key validation, and the owner of `api_keys`: the authentication guard and the operator API use it. */
@Module({
  imports: [IdempotencyModule],
  controllers: [AuthController],
  providers: [ApiKeysRepository],
  exports: [ApiKeysRepository],
})
export class AuthModule {}

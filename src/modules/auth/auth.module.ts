import { Module } from '@nestjs/common';
import { ApiKeysRepository } from '../../common/auth/api-keys.repository';
import { ApiKeysService } from '../../common/auth/api-keys.service';
import { AuthController } from './auth.controller';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

/** Key validation, and the owner of `api_keys`: the authentication guard, the operator API and the webhooks ask its ApiKeysService. */
@Module({
  imports: [IdempotencyModule],
  controllers: [AuthController],
  providers: [ApiKeysRepository, ApiKeysService],
  exports: [ApiKeysService],
})
export class AuthModule {}

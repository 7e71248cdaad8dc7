import { Module } from '@nestjs/common';
import { JobQueueModule } from '../../common/background/job-queue.module';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookFanOut } from './webhook-fan-out';
import { WebhookQueue } from './webhook-queue';
import { Clock } from './webhook-retry-policy';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';
import { RecordsModule } from '../../records/records.module';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

/**
 * Webhook endpoints and deliveries (docs/api.md §13). The events' append (records core) leaves a
 * write's row in the webhooks' outbox through the follower WebhookFanOut registers with it at init.
 */
@Module({
  imports: [RecordsModule, IdempotencyModule, JobQueueModule, EventsModule, AuthModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookDeliveries, WebhookFanOut, WebhookQueue, Clock],
})
export class WebhooksModule {}

import { Global, Module } from '@nestjs/common';
import { EVENT_DELIVERIES } from '../../records/events.repository';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookQueue } from './webhook-queue';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * Webhook endpoints and deliveries (docs/api.md §13). Global for one provider: the events' append
 * (records core) takes EVENT_DELIVERIES from here, to enqueue deliveries in the events' statement.
 */
@Global()
@Module({
  imports: [EventsModule, AuthModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookDeliveries, WebhookQueue, { provide: EVENT_DELIVERIES, useExisting: WebhooksRepository }],
  exports: [EVENT_DELIVERIES],
})
export class WebhooksModule {}

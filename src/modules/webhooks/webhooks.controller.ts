import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { Preconditions, type WriteCondition } from '../../common/http/entity-tags';
import { PreparesOutsideTransaction } from '../../common/idempotency/prepared-writes';
import { exampleIdOf } from '../../common/ids';
import { ApiJsonBody } from '../../common/openapi/api-json-body';
import { Page, Paginated } from '../../common/pagination/pagination';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import {
  CreateWebhookDto,
  EXAMPLE_WEBHOOK_URL,
  RedeliverWebhookDto,
  RotateWebhookSecretDto,
  UpdateWebhookDto,
  WebhookDeliveryDto,
  WebhookDto,
  WebhookWithSecretDto,
} from './webhooks.dto';
import { WebhooksService } from './webhooks.service';

@ApiTags('Webhooks')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @Endpoint({
    summary: 'Create a webhook endpoint: the answer holds its signing secret, shown only here',
    category: 'write',
    scopes: ['webhooks:write'],
    response: WebhookWithSecretDto,
    conditional: 'create',
  })
  @ApiJsonBody(CreateWebhookDto, {
    summary:
      'Notes created and updated, sent to an address of a documentation range (RFC 5737): put your receiver’s URL there',
    value: { url: EXAMPLE_WEBHOOK_URL, eventTypes: ['note.created', 'note.updated'], description: 'CRM sync' },
  })
  @PreparesOutsideTransaction()
  create(@Caller() caller: AuthContext, @Body() body: CreateWebhookDto): Promise<WebhookWithSecretDto> {
    return this.webhooks.create(caller, body);
  }

  @Get()
  @Endpoint({
    summary: 'List the webhook endpoints of the workspace, newest first',
    category: 'search',
    scopes: ['webhooks:read'],
  })
  @Paginated(WebhookDto)
  list(@Caller() caller: AuthContext, @Page() page: PageRequest): Promise<PageResult<WebhookDto>> {
    return this.webhooks.list(caller, page);
  }

  @Get(':id')
  @Endpoint({
    summary: 'Retrieve a webhook endpoint',
    category: 'read',
    scopes: ['webhooks:read'],
    response: WebhookDto,
    conditional: 'read',
  })
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<WebhookDto> {
    return this.webhooks.get(caller, id);
  }

  @Post(':id')
  @Endpoint({
    summary: 'Change a webhook endpoint’s URL, event types, description or status',
    category: 'write',
    scopes: ['webhooks:write'],
    response: WebhookDto,
    conditional: 'update',
  })
  @ApiJsonBody(UpdateWebhookDto, {
    summary: 'Also send tasks created, and say so',
    value: {
      eventTypes: ['note.created', 'note.updated', 'task.created'],
      description: 'CRM sync: notes and new tasks',
    },
  })
  @PreparesOutsideTransaction()
  update(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Body() body: UpdateWebhookDto,
    @Preconditions() condition: WriteCondition | undefined,
  ): Promise<WebhookDto> {
    return this.webhooks.update(caller, id, body, condition);
  }

  @Delete(':id')
  @Endpoint({
    summary: 'Delete a webhook endpoint and its delivery log: no attempt is made after this',
    category: 'write',
    scopes: ['webhooks:write'],
    response: WebhookDto,
    conditional: 'delete',
  })
  delete(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Preconditions() condition: WriteCondition | undefined,
  ): Promise<WebhookDto> {
    return this.webhooks.delete(caller, id, condition);
  }

  @Post(':id/rotate-secret')
  @Endpoint({
    summary: 'A new signing secret, shown only here; the previous one keeps signing beside it for 24 hours',
    category: 'write',
    scopes: ['webhooks:write'],
    response: WebhookWithSecretDto,
    conditional: 'update',
  })
  @ApiJsonBody(RotateWebhookSecretDto, { summary: 'No members', value: {} }, false)
  rotateSecret(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Body() _body: RotateWebhookSecretDto,
    @Preconditions() condition: WriteCondition | undefined,
  ): Promise<WebhookWithSecretDto> {
    return this.webhooks.rotateSecret(caller, id, condition);
  }

  @Get(':id/deliveries')
  @Endpoint({
    summary: 'The delivery attempts of a webhook endpoint, newest first',
    category: 'search',
    scopes: ['webhooks:read'],
  })
  @Paginated(WebhookDeliveryDto, { serialKeys: true })
  deliveries(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Page() page: PageRequest,
  ): Promise<PageResult<WebhookDeliveryDto>> {
    return this.webhooks.deliveries(caller, id, page);
  }

  @Post(':id/redeliver')
  @Endpoint({
    summary: 'Send an event the endpoint was sent before again, now: answers the new attempt',
    category: 'write',
    scopes: ['webhooks:write'],
    response: WebhookDeliveryDto,
    errors: ['invalid_state'],
  })
  @ApiJsonBody(RedeliverWebhookDto, {
    summary: 'eventId needs the id of an event this endpoint was sent (its deliveries list them)',
    value: { eventId: exampleIdOf('event') },
  })
  redeliver(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Body() body: RedeliverWebhookDto,
  ): Promise<WebhookDeliveryDto> {
    return this.webhooks.redeliver(caller, id, body);
  }
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayNotEmpty, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { exampleIdOf } from '../../common/ids';
import { MAX_WEBHOOK_URL_LENGTH } from './webhook-url';
import type { DeliveryStatus, WebhookStatus } from './webhooks.repository';

export const WEBHOOK_STATUSES: WebhookStatus[] = ['ENABLED', 'DISABLED'];
const DELIVERY_STATUSES: DeliveryStatus[] = ['SUCCEEDED', 'FAILED', 'PENDING'];
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 1000;
/** Every event type the endpoint's key may read, present and future: it stands alone in `eventTypes`. */
export const ALL_EVENT_TYPES = '*';

/**
 * An example endpoint URL. An address of TEST-NET-3 (RFC 5737), reserved for documentation: it
 * needs no DNS, passes the private-network check as any public address does, and a person who
 * tries the example sends no workspace data to anyone's server.
 */
export const EXAMPLE_WEBHOOK_URL = 'https://203.0.113.10/webhooks';

const URL_PROPERTY: ApiPropertyOptions = {
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  example: EXAMPLE_WEBHOOK_URL,
  description:
    'An absolute http or https URL without credentials. Its host must not resolve to a loopback, private, link-local, ' +
    'multicast or unspecified address (unless the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true).',
};
const EVENT_TYPES_PROPERTY: ApiPropertyOptions = {
  type: [String],
  minItems: 1,
  example: ['note.created', 'note.updated'],
  description:
    'Event types of the workspace (`GET /v1/events` names them: `note.created`, `list.member_added`, …), which the key ' +
    'must be able to read, or `["*"]`: every type the endpoint\'s key may read, also those added later, and no other.',
};
const DESCRIPTION_PROPERTY: ApiPropertyOptions = {
  type: 'string',
  nullable: true,
  maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH,
  example: 'CRM sync',
};
const DESCRIPTION_RULE = `description holds at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters`;
const STATUS_RULE = `status must be one of ${WEBHOOK_STATUSES.join(', ')}`;

export class CreateWebhookDto {
  @ApiProperty(URL_PROPERTY)
  @IsString()
  url: string;

  @ApiProperty(EVENT_TYPES_PROPERTY)
  @IsArray()
  @ArrayNotEmpty({ message: 'eventTypes must name at least one event type' })
  @IsString({ each: true, message: 'eventTypes must be an array of strings' })
  eventTypes: string[];

  @ApiPropertyOptional({
    ...DESCRIPTION_PROPERTY,
    description: 'Free text for people; null is the same as leaving it out',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_WEBHOOK_DESCRIPTION_LENGTH, { message: DESCRIPTION_RULE })
  description?: string;
}

/** What an update may change; a member left out (or null) keeps its value. */
export class UpdateWebhookDto {
  @ApiPropertyOptional(URL_PROPERTY)
  @IsOptional()
  @IsString()
  url?: string;

  @ApiPropertyOptional(EVENT_TYPES_PROPERTY)
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty({ message: 'eventTypes must name at least one event type' })
  @IsString({ each: true, message: 'eventTypes must be an array of strings' })
  eventTypes?: string[];

  @ApiPropertyOptional({ ...DESCRIPTION_PROPERTY, description: 'An empty string clears it (it then reads null)' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_WEBHOOK_DESCRIPTION_LENGTH, { message: DESCRIPTION_RULE })
  description?: string;

  @ApiPropertyOptional({
    enum: WEBHOOK_STATUSES,
    description:
      'DISABLED stops deliveries (disabledReason then says a person did it); ENABLED resumes them and clears disabledReason',
  })
  @IsOptional()
  @IsIn(WEBHOOK_STATUSES, { message: STATUS_RULE })
  status?: WebhookStatus;
}

/** `POST /v1/webhooks/{id}/rotate-secret` takes no members: an empty object or no body. */
export class RotateWebhookSecretDto {}

export class RedeliverWebhookDto {
  @ApiProperty({
    example: exampleIdOf('event'),
    description: 'An event this endpoint was sent before (any attempt, any outcome)',
  })
  @IsString()
  eventId: string;
}

export class WebhookDto {
  @ApiProperty({ example: exampleIdOf('webhook') })
  id: string;

  @ApiProperty({ enum: ['webhook'] })
  object: 'webhook';

  @ApiProperty({ example: EXAMPLE_WEBHOOK_URL })
  url: string;

  @ApiProperty({
    type: [String],
    example: ['note.created', 'note.updated'],
    description: 'Event types, or `["*"]` for every type',
  })
  eventTypes: string[];

  @ApiProperty({ type: 'string', nullable: true })
  description: string | null;

  @ApiProperty({ enum: WEBHOOK_STATUSES })
  status: WebhookStatus;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why the endpoint is DISABLED: a person disabled it, or the service gave up on it; null while ENABLED',
  })
  disabledReason: string | null;

  @ApiProperty({
    example: exampleIdOf('member'),
    description: 'The member whose API key created the endpoint: its events are read as that key reads them',
  })
  memberId: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    example: 1,
    description: 'How many changes the endpoint has had (its secret’s rotations included); its ETag is `"v<version>"`',
  })
  version: number;
}

/** The endpoint with its signing secret: what its create and a rotation answer, and nothing else. */
export class WebhookWithSecretDto extends WebhookDto {
  @ApiProperty({
    example: 'whsec_LSxjmrV3ueQ8vSVGMwXrNpCLfeDN74cE',
    description: 'The Standard Webhooks signing secret (`whsec_` and base64): shown here once, never again',
  })
  secret: string;
}

/** One attempt to deliver one event to one endpoint. */
export class WebhookDeliveryDto {
  @ApiProperty({ example: exampleIdOf('event') })
  eventId: string;

  @ApiProperty({ minimum: 1, description: 'The first delivery of an event is 1; each retry or redelivery one more' })
  attempt: number;

  @ApiProperty({ enum: DELIVERY_STATUSES, description: 'PENDING until the attempt is made' })
  status: DeliveryStatus;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The receiver’s HTTP status; null when it gave none' })
  responseStatus: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  durationMs: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why the attempt failed; null when it succeeded or is PENDING',
  })
  error: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  attemptedAt: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'PENDING: when the attempt is due. Otherwise when the next attempt is due; null when none follows',
  })
  nextAttemptAt: string | null;
}

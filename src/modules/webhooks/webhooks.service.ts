import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiKeysService } from '../../common/auth/api-keys.service';
import { insufficientScope } from '../../common/auth/scopes';
import { ApiError } from '../../common/errors/api-error';
import { conditionFailure, type WriteCondition } from '../../common/http/entity-tags';
import { PreparedWrites } from '../../common/idempotency/prepared-writes';
import { isIdOf, newId } from '../../common/ids';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { ChangeEvents } from '../../records/change-events';
import { EventsService, EventTypeAccess, namedTypes } from '../events/events.service';
import { MAX_WEBHOOK_URL_LENGTH, readWebhookUrl, resolveWebhookUrl } from './webhook-url';
import {
  ALL_EVENT_TYPES,
  CreateWebhookDto,
  RedeliverWebhookDto,
  UpdateWebhookDto,
  WebhookDeliveryDto,
  WebhookDto,
  WebhookWithSecretDto,
} from './webhooks.dto';
import { DeliveryRow, WebhookEndpointRow, WebhooksRepository } from './webhooks.repository';

/** How long a rotated-out secret keeps signing beside the new one. */
const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

type EventTypes = Map<string, EventTypeAccess>;

/** A malformed id, another workspace's endpoint and an unknown one are all a plain 404. */
function notFound(): ApiError {
  return ApiError.notFound('Webhook');
}

/** A Standard Webhooks secret: `whsec_` and the base64 of 24 random bytes. */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The URL as it is stored and shown: parsed and written back (host in lower case), at most 2,048 characters. */
function urlOf(value: unknown): string {
  const { href } = readWebhookUrl(value);
  if (href.length > MAX_WEBHOOK_URL_LENGTH) {
    throw ApiError.invalidValue(
      'url',
      `url holds at most ${MAX_WEBHOOK_URL_LENGTH} characters once normalised (percent-encoded)`,
    );
  }
  return href;
}

/** The event types of `types` that the reader of `known` may not read (a type no longer defined has no events to read). */
function unreadableOf(known: EventTypes, types: string[]): string[] {
  return types.filter((type) => known.get(type)?.readable === false);
}

/** The 403 of a caller that may not read `unreadable`, naming the scopes it lacks for them. */
function mayNotRead(caller: AuthContext, known: EventTypes, unreadable: string[], needing: string): ApiError {
  return insufficientScope(
    needing,
    unreadable.map((type) => known.get(type)!.scope),
    caller.scopes,
  );
}

function toDto(row: WebhookEndpointRow): WebhookDto {
  return {
    id: row.id,
    object: 'webhook',
    url: row.url,
    eventTypes: row.event_types,
    description: row.description,
    status: row.status,
    disabledReason: row.disabled_reason,
    memberId: row.member_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    version: row.version,
  };
}

function toDeliveryDto(row: DeliveryRow): WebhookDeliveryDto {
  const next = row.status === 'PENDING' ? row.scheduled_at : row.next_attempt_at;
  return {
    eventId: row.event_id,
    attempt: row.attempt,
    status: row.status,
    responseStatus: row.response_status,
    durationMs: row.duration_ms,
    error: row.error,
    attemptedAt: row.attempted_at?.toISOString() ?? null,
    nextAttemptAt: next?.toISOString() ?? null,
  };
}

/**
 * Webhook endpoints (docs/api.md §13): what the workspace's keys with `webhooks:*` manage. The
 * deliveries themselves are WebhookDeliveries'; a redelivery here only makes an attempt due.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly transactions: Transactions,
    private readonly writes: PreparedWrites,
    private readonly webhooks: WebhooksRepository,
    private readonly feed: EventsService,
    private readonly events: ChangeEvents,
    private readonly apiKeys: ApiKeysService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Checks the URL, the event types and where the URL points (DNS, outside any transaction: the
   * route prepares outside it), then writes the endpoint, owned by the caller's member and key.
   */
  async create(caller: AuthContext, body: CreateWebhookDto): Promise<WebhookWithSecretDto> {
    const url = urlOf(body.url);
    const eventTypes = await this.subscribable(caller, body.eventTypes);
    await this.checkReachable(url);
    const secret = newSecret();
    // What the commit returns is the response (stored with the write under an Idempotency-Key).
    return this.writes.commit(async () => {
      const row = await this.webhooks.insertEndpoint({
        id: newId('webhook'),
        workspaceId: caller.workspaceId,
        memberId: caller.memberId,
        apiKeyId: caller.apiKeyId,
        url,
        eventTypes,
        description: body.description || null,
        secret,
      });
      return { ...toDto(row), secret };
    });
  }

  async list(caller: AuthContext, page: PageRequest): Promise<PageResult<WebhookDto>> {
    const { rows, total, next } = await this.webhooks.pageEndpoints(caller.workspaceId, page);
    return { data: rows.map(toDto), totalCount: total, next };
  }

  async get(caller: AuthContext, id: string): Promise<WebhookDto> {
    return toDto(await this.find(caller, id));
  }

  /**
   * Changes what the body gives; what equals the endpoint's value changes nothing, and an update
   * that changes nothing writes nothing (`updatedAt` stays). A changed URL is checked as on create.
   * An update that changes the URL or the event types needs a caller that may read every type the
   * endpoint is then sent (403; else a key could have another key's events sent to a receiver of
   * its own). New event types must also be readable by the endpoint's own key, which its events
   * are read as (422); `*` is what that key may read.
   */
  async update(
    caller: AuthContext,
    id: string,
    body: UpdateWebhookDto,
    condition?: WriteCondition,
  ): Promise<WebhookDto> {
    const url = body.url === undefined ? undefined : urlOf(body.url);
    const eventTypes = body.eventTypes && (await this.subscribable(caller, body.eventTypes));
    const before = await this.find(caller, id);
    if (url !== undefined && url !== before.url) await this.checkReachable(url);
    return this.writes.commit(async () => {
      const row = await this.lockEndpoint(caller, id, condition);
      const change: Parameters<WebhooksRepository['updateEndpoint']>[2] = {};
      if (url !== undefined && url !== row.url) change.url = url;
      if (eventTypes && eventTypes.join('\n') !== row.event_types.join('\n')) change.eventTypes = eventTypes;
      const description = body.description === undefined ? undefined : body.description || null;
      if (description !== undefined && description !== row.description) change.description = description;
      if (body.status !== undefined && body.status !== row.status) {
        change.status = body.status;
        if (body.status === 'DISABLED') change.disabledReason = `disabled through the API by member ${caller.memberId}`;
      }
      if (Object.keys(change).length === 0) return toDto(row);
      if (change.url || change.eventTypes) {
        await this.checkCallerReads(caller, row, eventTypes ?? row.event_types, change.url !== undefined);
      }
      if (change.eventTypes) await this.checkOwnerReads(row, change.eventTypes);
      return toDto((await this.webhooks.updateEndpoint(caller.workspaceId, id, change))!);
    });
  }

  async delete(caller: AuthContext, id: string, condition?: WriteCondition): Promise<WebhookDto> {
    if (!isIdOf('webhook', id)) throw notFound();
    // One statement: the endpoint and (by cascade) its delivery log; after its lock when it is conditioned.
    const row = await this.conditioned(caller, id, condition, () =>
      this.webhooks.deleteEndpoint(caller.workspaceId, id),
    );
    if (!row) throw notFound();
    return toDto(row);
  }

  /**
   * A new secret; the one it replaces keeps signing beside it for 24 hours. Rotating again within
   * them makes the secret just replaced the one beside the new one: the older one stops at once.
   */
  async rotateSecret(caller: AuthContext, id: string, condition?: WriteCondition): Promise<WebhookWithSecretDto> {
    if (!isIdOf('webhook', id)) throw notFound();
    const secret = newSecret();
    const until = new Date(Date.now() + PREVIOUS_SECRET_MS);
    const row = await this.conditioned(caller, id, condition, () =>
      this.webhooks.rotateSecret(caller.workspaceId, id, secret, until),
    );
    if (!row) throw notFound();
    return { ...toDto(row), secret };
  }

  async deliveries(caller: AuthContext, id: string, page: PageRequest): Promise<PageResult<WebhookDeliveryDto>> {
    const endpoint = await this.find(caller, id);
    const { rows, total, next } = await this.webhooks.pageDeliveries(endpoint.id, page);
    return { data: rows.map(toDeliveryDto), totalCount: total, next };
  }

  /**
   * One more attempt of an event of the workspace whose type the endpoint is sent, due now
   * (docs/api.md §13): numbered after the endpoint's last attempt of it (1 when it was never sent,
   * say an event older than the endpoint), and followed by retries on failure as any attempt is.
   * Only to an ENABLED endpoint (409), and only while the event is kept (404).
   */
  async redeliver(caller: AuthContext, id: string, body: RedeliverWebhookDto): Promise<WebhookDeliveryDto> {
    if (!isIdOf('webhook', id)) throw notFound();
    return this.transactions.run(async () => {
      const endpoint = await this.lockEndpoint(caller, id);
      if (endpoint.status !== 'ENABLED') {
        throw new ApiError(
          409,
          'invalid_state',
          'This webhook is DISABLED: enable it (status ENABLED) before redelivering',
        );
      }
      const event = isIdOf('event', body.eventId)
        ? await this.events.find(caller.workspaceId, body.eventId)
        : undefined;
      if (!event) {
        throw new ApiError(
          404,
          'not_found',
          `No event ${body.eventId.slice(0, 40)} of this workspace is kept (events are kept ${this.config.eventRetentionDays} days)`,
        );
      }
      if (!(await this.sentTypes(endpoint, endpoint.event_types)).includes(event.type)) {
        throw new ApiError(404, 'not_found', `This webhook is not sent ${event.type} events`);
      }
      const highest = (await this.webhooks.highestAttempt(endpoint.id, event.id)) ?? 0;
      return toDeliveryDto(await this.webhooks.insertAttempt(endpoint.id, event.id, highest + 1, new Date()));
    });
  }

  /**
   * The endpoint, locked until the transaction ends, if it meets `condition` (412 else): an update,
   * a redelivery and a delete of one endpoint take turns, and the version compared is the one the
   * write changes.
   */
  private async lockEndpoint(caller: AuthContext, id: string, condition?: WriteCondition): Promise<WebhookEndpointRow> {
    const row = await this.webhooks.findEndpoint(caller.workspaceId, id, { lock: true });
    if (!row) throw notFound();
    const failure = conditionFailure(condition, row.version);
    if (failure) throw failure;
    return row;
  }

  /** `write` alone without a condition (one statement); else in a transaction, after lockEndpoint. */
  private conditioned<T>(
    caller: AuthContext,
    id: string,
    condition: WriteCondition | undefined,
    write: () => Promise<T>,
  ): Promise<T> {
    if (!condition) return write();
    return this.transactions.run(async () => {
      await this.lockEndpoint(caller, id, condition);
      return write();
    });
  }

  private async find(caller: AuthContext, id: string): Promise<WebhookEndpointRow> {
    const row = isIdOf('webhook', id) ? await this.webhooks.findEndpoint(caller.workspaceId, id) : undefined;
    if (!row) throw notFound();
    return row;
  }

  /**
   * `requested` without repeats: event types of the workspace (422 for another) that the caller
   * may read (403), or `*` alone: the types the endpoint's key may read, whichever they are.
   */
  private async subscribable(caller: AuthContext, requested: string[]): Promise<string[]> {
    const types = [...new Set(requested)];
    if (types.includes(ALL_EVENT_TYPES) && types.length > 1) {
      throw ApiError.invalidValue('eventTypes', '* stands for every event type: it stands alone');
    }
    const known = await this.feed.eventTypesOf(caller);
    const unknown = types.find((type) => type !== ALL_EVENT_TYPES && !known.has(type));
    if (unknown !== undefined)
      throw ApiError.invalidValue('eventTypes', `${unknown} is not an event type of this workspace`);
    const unreadable = unreadableOf(known, types);
    if (unreadable.length > 0)
      throw mayNotRead(caller, known, unreadable, `Subscribing to ${namedTypes(unreadable)} events`);
    return types;
  }

  /**
   * The event types the endpoint is sent with `types`: those, or for `*` the types its own key may
   * read now (none once that key is revoked: nothing is sent then).
   */
  private async sentTypes(endpoint: WebhookEndpointRow, types: string[]): Promise<string[]> {
    if (!types.includes(ALL_EVENT_TYPES)) return types;
    const owner = await this.apiKeys.contextOfActiveKey(endpoint.api_key_id);
    if (!owner) return [];
    const readable = [...(await this.feed.eventTypesOf(owner))].filter(([, access]) => access.readable);
    return readable.map(([type]) => type);
  }

  /** A caller that points an endpoint elsewhere, or changes what it is sent, must be able to read what it is then sent. */
  private async checkCallerReads(
    caller: AuthContext,
    endpoint: WebhookEndpointRow,
    types: string[],
    pointsElsewhere: boolean,
  ): Promise<void> {
    const known = await this.feed.eventTypesOf(caller);
    const unreadable = unreadableOf(known, await this.sentTypes(endpoint, types));
    if (unreadable.length === 0) return;
    const named = namedTypes(unreadable);
    const needing = pointsElsewhere
      ? `Pointing a webhook sent ${named} events at another url`
      : `Subscribing a webhook to ${named} events`;
    throw mayNotRead(caller, known, unreadable, needing);
  }

  /** The endpoint's key (its events are read as that key) must be able to read new types, unless it is revoked; `*` is what it reads. */
  private async checkOwnerReads(endpoint: WebhookEndpointRow, types: string[]): Promise<void> {
    if (types.includes(ALL_EVENT_TYPES)) return;
    const owner = await this.apiKeys.contextOfActiveKey(endpoint.api_key_id);
    const unreadable = owner ? unreadableOf(await this.feed.eventTypesOf(owner), types) : [];
    if (unreadable.length > 0) {
      throw ApiError.invalidValue(
        'eventTypes',
        `This webhook's events are read as the API key that created it, which may not read ${namedTypes(unreadable)} events`,
      );
    }
  }

  /** SSRF: the URL's host must resolve, and only to addresses an endpoint may reach (docs/api.md §13). */
  private async checkReachable(url: string): Promise<void> {
    const resolution = await resolveWebhookUrl(new URL(url), this.config.webhooks.allowPrivateNetworks);
    if ('refused' in resolution) throw ApiError.invalidValue('url', `url is refused: ${resolution.refused}`);
  }
}

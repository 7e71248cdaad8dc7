import { Injectable, Logger } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { ApiKeysService } from '../../common/auth/api-keys.service';
import type { AuthContext } from '../../common/auth/auth-context';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { ChangeEvents } from '../../records/change-events';
import type { EventRow } from '../../records/events.repository';
import { EventsService } from '../events/events.service';
import { afterFailure, Clock, nextAttemptAt } from './webhook-retry-policy';
import { postTo, SendOutcome } from './webhook-sender';
import { resolveWebhookUrl } from './webhook-url';
import { AttemptOutcome, DeliveryRow, WebhookEndpointRow, WebhooksRepository } from './webhooks.repository';

/** Successes recorded in one statement at most (SucceededAttempts): those made since the last are lost with the process, and made again. */
const SUCCESSES_AT_ONCE = 64;
/** How long a success waits, at most, for others to be recorded with (SucceededAttempts). */
const SUCCESS_RECORD_WAIT_MS = 100;

/** The Standard Webhooks secret prefix: what follows it is the key, in base64. */
const SECRET_PREFIX = 'whsec_';

/**
 * The Standard Webhooks signature header: one `v1,…` per secret in use, space-separated; each the
 * base64 HMAC-SHA256, under the secret's key, of `<event id>.<unix seconds>.<body>` (the
 * `standardwebhooks` package's `sign`, through node's crypto rather than its JavaScript SHA-256).
 */
export function signatureOf(endpoint: WebhookEndpointRow, eventId: string, at: Date, body: string): string {
  const secrets = [endpoint.secret];
  if (endpoint.previous_secret && endpoint.previous_secret_until && endpoint.previous_secret_until > at)
    secrets.push(endpoint.previous_secret);
  const signed = `${eventId}.${Math.floor(at.getTime() / 1000)}.${body}`;
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
    })
    .join(' ');
}

/**
 * Makes one attempt of a delivery (docs/api.md §13), as the job queue asks: reads the event as
 * the endpoint's member may read it now, checks where the URL points, POSTs it signed, and records
 * the outcome with what follows (the next attempt, due on WEBHOOK_RETRY_SCHEDULE, or the endpoint
 * disabled) in one transaction. The attempt is claimed for this worker first (see WebhookQueue).
 */
@Injectable()
export class WebhookDeliveries {
  private readonly logger = new Logger('WebhookDeliveries');

  constructor(
    private readonly transactions: Transactions,
    private readonly webhooks: WebhooksRepository,
    private readonly events: ChangeEvents,
    private readonly feed: EventsService,
    private readonly apiKeys: ApiKeysService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** `shutdown` aborts when the instance shuts down: a POST still waiting for its answer is cut off, and recorded as failed. */
  async attempt(deliveryId: string, instanceId: string, shutdown?: AbortSignal): Promise<void> {
    const claimed = await this.webhooks.claimAttempt(deliveryId, instanceId);
    if (claimed) await this.make(claimed.delivery, claimed.endpoint, this.bodiesOf([claimed]), shutdown);
  }

  /**
   * Makes an attempt claimed for this instance (see attempt); `bodies` keeps the bodies read for
   * the attempts made together (a take of the outbox's), one per event and API key, and `successes`, when
   * given, records their successes together (its flush must follow).
   */
  async make(
    delivery: DeliveryRow,
    endpoint: WebhookEndpointRow,
    bodies: EventBodies,
    shutdown?: AbortSignal,
    successes?: SucceededAttempts,
  ): Promise<void> {
    const attemptedAt = this.clock.now();
    const refused = (error: string): SendOutcome => ({ status: null, durationMs: 0, error, retryAfterSeconds: null });
    if (endpoint.status !== 'ENABLED')
      return this.record(delivery, endpoint, refused('the endpoint is disabled'), attemptedAt, { final: true });
    const body = await bodies.of(endpoint, delivery.event_id);
    if (typeof body !== 'string')
      return this.record(delivery, endpoint, refused(body.refused), attemptedAt, { final: true });
    const url = new URL(endpoint.url);
    const resolution = await resolveWebhookUrl(
      url,
      this.config.webhooks.allowPrivateNetworks,
      this.config.webhooks.allowedNetworks,
    );
    if ('refused' in resolution) return this.record(delivery, endpoint, refused(resolution.refused), attemptedAt);
    const sentAt = this.clock.now();
    const headers = {
      'webhook-id': delivery.event_id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signatureOf(endpoint, delivery.event_id, sentAt, body),
      'user-agent': 'workspace-records-webhooks/1',
    };
    return this.record(delivery, endpoint, await postTo(url, resolution, headers, body, shutdown), sentAt, {
      successes,
    });
  }

  /** Successes of attempts made together (a take of the outbox's), to be recorded a few at once (see SucceededAttempts). */
  successBatch(): SucceededAttempts {
    return new SucceededAttempts(this.webhooks, this);
  }

  /**
   * Records an attempt whose making threw (a fault of the service's, or the database lost) as
   * failed, with the next one due on the schedule, in one transaction; nothing when it was
   * recorded meanwhile. The endpoint's failing streak stays as it was: the receiver said nothing.
   */
  async recordUnexpectedFailure(deliveryId: string): Promise<void> {
    await this.transactions.run(async () => {
      const pending = await this.webhooks.findPendingAttempt(deliveryId);
      if (!pending) return;
      const { delivery, failingSince } = pending;
      const now = this.clock.now();
      const outcome = {
        succeeded: false,
        responseStatus: null,
        durationMs: 0,
        error: 'the service failed while making this attempt',
        attemptedAt: now,
      };
      const next = nextAttemptAt(this.config.webhooks, delivery.attempt, null, now);
      await this.webhooks.finishAttempt(delivery.id, delivery.endpoint_id, outcome, next, failingSince);
      if (next) await this.webhooks.insertAttempt(delivery.endpoint_id, delivery.event_id, delivery.attempt + 1, next);
    });
  }

  /**
   * What follows an attempt whose making threw, for a delivery job and a fan-out alike: it is
   * recorded as failed, the next one due on the schedule (recordUnexpectedFailure). If even that
   * fails, the attempt's claim is let go, so that the recovery enqueues it once it is a minute
   * overdue (it enqueues only unclaimed attempts: a claimed one may be under way); if that fails
   * too, the claim stays until this worker stops, and the recovery then makes the attempt again.
   */
  async failedUnexpectedly(deliveryId: string, error: unknown): Promise<void> {
    this.logger.error({ err: error }, `webhook attempt ${deliveryId} failed unexpectedly; recording it as failed`);
    try {
      await this.recordUnexpectedFailure(deliveryId);
    } catch (recordError) {
      this.logger.error(
        { err: recordError },
        `webhook attempt ${deliveryId} could not be recorded; letting its claim go for the recovery`,
      );
      await this.webhooks.releaseClaim(deliveryId).catch((releaseError: unknown) => {
        this.logger.error(
          { err: releaseError },
          `webhook attempt ${deliveryId} keeps its claim; it is made again once this worker stops`,
        );
      });
    }
  }

  /** The bodies of `attempts`, made together: see EventBodies. */
  bodiesOf(attempts: { delivery: DeliveryRow; endpoint: WebhookEndpointRow }[]): EventBodies {
    return new EventBodies(
      attempts,
      (ids) => this.apiKeys.contextsOfActiveKeys(ids),
      (workspaceId, ids) => this.events.findAll(workspaceId, ids),
      (reader, event) => this.present(reader, event),
    );
  }

  /**
   * The event as the endpoint's key (`reader`, undefined once it is revoked or its member
   * removed) would read it from the feed now, as JSON; or why it may not have it: the key is
   * revoked, the key may not read the type, the event is no longer kept (undefined), or it is a
   * transcript file the member may not see.
   */
  private async present(
    reader: AuthContext | undefined,
    event: EventRow | undefined,
  ): Promise<string | { refused: string }> {
    if (!reader) return { refused: "the endpoint's API key is revoked or its member removed" };
    if (!event) return { refused: 'the event is no longer kept' };
    if ((await this.feed.eventTypesOf(reader)).get(event.type)?.readable !== true) {
      return { refused: `the endpoint's API key may not read ${event.type} events` };
    }
    const [presented] = await this.feed.eventsJsonFor(reader, [event]);
    return presented ?? { refused: "the endpoint's member may not see this file" };
  }

  /**
   * Records the attempt and what follows it: a success ends the endpoint's failing streak (one
   * statement; to `successes` when given); a failure is followed as the policy says (afterFailure:
   * the next attempt on the schedule, or the endpoint disabled), in one transaction.
   */
  private async record(
    delivery: DeliveryRow,
    endpoint: WebhookEndpointRow,
    outcome: SendOutcome,
    attemptedAt: Date,
    { final = false, successes }: { final?: boolean; successes?: SucceededAttempts } = {},
  ): Promise<void> {
    const succeeded = outcome.error === null;
    const attempt = { ...outcome, succeeded, responseStatus: outcome.status, attemptedAt };
    if (succeeded && successes) return successes.add(delivery.id, attempt);
    if (succeeded) {
      await this.webhooks.finishAttempt(delivery.id, endpoint.id, attempt, null, null);
      return;
    }
    const { failingSince, next, disabledReason } = afterFailure(
      this.config.webhooks,
      {
        attempt: delivery.attempt,
        status: outcome.status,
        retryAfterSeconds: outcome.retryAfterSeconds,
        attemptedAt,
        failingSince: endpoint.failing_since,
        final,
      },
      this.clock.now(),
    );
    await this.transactions.run(async () => {
      if (!(await this.webhooks.finishAttempt(delivery.id, endpoint.id, attempt, next, failingSince))) return;
      if (next) await this.webhooks.insertAttempt(endpoint.id, delivery.event_id, delivery.attempt + 1, next);
      if (disabledReason) await this.webhooks.disableEndpoint(endpoint.id, disabledReason);
    });
  }
}

/**
 * The bodies of attempts made together (a take of the outbox's, or a delivery job's one), read
 * once per event and API key: the endpoints of one key see an event alike (as that key's member
 * reads it, at the first of them). Their keys are read in one statement, and their events in one
 * per workspace, at the first body asked for.
 */
export class EventBodies {
  private readonly bodies = new Map<string, Promise<string | { refused: string }>>();
  private looked?: Promise<{ readers: Map<string, AuthContext>; events: Map<string, EventRow> }>;

  constructor(
    private readonly attempts: { delivery: DeliveryRow; endpoint: WebhookEndpointRow }[],
    private readonly readersOf: (apiKeyIds: string[]) => Promise<Map<string, AuthContext>>,
    private readonly eventsOf: (workspaceId: string, ids: string[]) => Promise<EventRow[]>,
    private readonly present: (
      reader: AuthContext | undefined,
      event: EventRow | undefined,
    ) => Promise<string | { refused: string }>,
  ) {}

  of(endpoint: WebhookEndpointRow, eventId: string): Promise<string | { refused: string }> {
    const key = `${endpoint.api_key_id} ${eventId}`;
    let body = this.bodies.get(key);
    if (!body) {
      body = this.lookUp().then(({ readers, events }) =>
        this.present(readers.get(endpoint.api_key_id), events.get(eventId)),
      );
      this.bodies.set(key, body);
    }
    return body;
  }

  private lookUp() {
    this.looked ??= (async () => {
      const eventIds = new Map<string, Set<string>>();
      for (const { delivery, endpoint } of this.attempts) {
        const ids = eventIds.get(endpoint.workspace_id) ?? new Set<string>();
        ids.add(delivery.event_id);
        eventIds.set(endpoint.workspace_id, ids);
      }
      const [readers, ...found] = await Promise.all([
        this.readersOf([...new Set(this.attempts.map(({ endpoint }) => endpoint.api_key_id))]),
        ...[...eventIds].map(([workspaceId, ids]) => this.eventsOf(workspaceId, [...ids])),
      ]);
      return { readers, events: new Map(found.flat().map((event) => [event.id, event])) };
    })();
    return this.looked;
  }
}

/**
 * The successes of attempts made together (a take of the outbox's), recorded SUCCESSES_AT_ONCE at a time in
 * one statement rather than one each, or those there are SUCCESS_RECORD_WAIT_MS after the first
 * of them; `flush` records the rest at once. Until then they stay PENDING and
 * claimed: a process killed meanwhile has them made again by the recovery (at least once, as
 * any attempt cut off). A batch that cannot be recorded is, attempt by attempt, what an attempt
 * whose making threw is (WebhookDeliveries.failedUnexpectedly).
 */
export class SucceededAttempts {
  private pending: { id: string; outcome: AttemptOutcome }[] = [];
  private due?: NodeJS.Timeout;

  constructor(
    private readonly webhooks: Pick<WebhooksRepository, 'finishSucceeded'>,
    private readonly deliveries: Pick<WebhookDeliveries, 'failedUnexpectedly'>,
  ) {}

  async add(id: string, outcome: AttemptOutcome): Promise<void> {
    this.pending.push({ id, outcome });
    if (this.pending.length >= SUCCESSES_AT_ONCE) await this.flush();
    else this.due ??= setTimeout(() => void this.flush(), SUCCESS_RECORD_WAIT_MS);
  }

  async flush(): Promise<void> {
    clearTimeout(this.due);
    this.due = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      await this.webhooks.finishSucceeded(batch);
    } catch (error) {
      for (const { id } of batch) await this.deliveries.failedUnexpectedly(id, error);
    }
  }
}

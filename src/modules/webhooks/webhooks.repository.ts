import { Injectable } from '@nestjs/common';
import { LessThan, Not } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { firstRowsSql, keysetPageSql } from '../../common/pagination/paging-sql';
import { endPage, type PageRead } from '../../common/pagination/pagination';
import type { PageRequest } from '../../common/pagination/pagination';
import { AppConfig } from '../../config/app-config';
import { WebhookDeliveryEntity } from '../../database/entities/webhook-delivery.entity';
import type { DeliveryStatus } from '../../database/entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from '../../database/entities/webhook-endpoint.entity';
import type { WebhookStatus } from '../../database/entities/webhook-endpoint.entity';
import { type RowLock, Transactions } from '../../database/transactions';
import type { AppendFollower } from '../../records/events.repository';
import { SqlParameterList } from '../../records/field-types/field-type';

export type { DeliveryStatus, WebhookStatus };

export interface WebhookEndpointRow {
  id: string;
  workspace_id: string;
  member_id: string;
  api_key_id: string;
  url: string;
  event_types: string[];
  description: string | null;
  status: WebhookStatus;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
  version: number;
}

export interface DeliveryRow {
  /** A bigint, as text. */
  id: string;
  endpoint_id: string;
  event_id: string;
  attempt: number;
  status: DeliveryStatus;
  scheduled_at: Date;
  attempted_at: Date | null;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  next_attempt_at: Date | null;
}

/** What an attempt came to, as the delivery log keeps it. */
export interface AttemptOutcome {
  succeeded: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  attemptedAt: Date;
}

const ENDPOINT_COLUMNS = `id, workspace_id, member_id, api_key_id, url, event_types, description, status, disabled_reason, secret,
  previous_secret, previous_secret_until, failing_since, created_at, updated_at, version`;
const DELIVERY_COLUMNS = `id::text AS id, endpoint_id, event_id, attempt, status, scheduled_at, attempted_at, response_status, duration_ms,
  error, next_attempt_at`;

/**
 * The database clock at the statement, whole, and in milliseconds: the precision the API shows and
 * the list is ordered by (docs/api.md §3).
 */
const STATEMENT_TIME = () => 'statement_timestamp()';
const STATEMENT_TIME_MS = () => "date_trunc('milliseconds', statement_timestamp())";
/** Every change of what the endpoint's answer shows counts in its version, in the statement that makes it. */
const NEXT_VERSION = () => 'version + 1';

/** The queue's task that makes one attempt (WebhookDeliveries). */
export const DELIVERY_TASK = 'webhook_delivery';

/**
 * `webhook_endpoints`, `webhook_deliveries` (one row per attempt) and `webhook_outbox` (see the
 * Webhooks migrations): through their TypeORM repositories, but for the delivery path, the queue's
 * side and the pages, written by hand where TypeORM cannot say the statement (docs/architecture.md
 * lists each). Also the events' AppendFollower: a write whose events an enabled endpoint
 * subscribes to leaves one row in the outbox, whatever the number of endpoints, in the statement
 * that appends them; the workers take the rows in batches and insert their first attempts
 * (takeOutbox).
 */
@Injectable()
export class WebhooksRepository implements AppendFollower {
  constructor(
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
  ) {}

  private get endpoints() {
    return this.transactions.repository(WebhookEndpointEntity);
  }

  private get deliveries() {
    return this.transactions.repository(WebhookDeliveryEntity);
  }

  /** AppendFollower: the write's row of the outbox is due after the retry schedule's first delay. */
  followSql(workspace: string, ids: string, types: string): string {
    // A whole number of seconds from the settings, written out: the statement's text stays one per process.
    const firstDelay = this.config.webhooks.retrySchedule[0];
    return `INSERT INTO webhook_outbox (workspace_id, event_ids, types, written_at, due_at)
      SELECT ${workspace}, ${ids}::text[], ${types}::text[], statement_timestamp(), statement_timestamp() + make_interval(secs => ${firstDelay})
       WHERE EXISTS (SELECT 1 FROM webhook_endpoints w
                      WHERE w.workspace_id = ${workspace} AND w.status = 'ENABLED' AND ('*' = ANY(w.event_types) OR w.event_types && ${types}::text[]))`;
  }

  /**
   * Takes up to `writes` rows of the outbox due now (those another worker is taking are passed
   * over) and, in the statement that removes them, inserts the first attempts of their events to
   * each endpoint enabled and subscribed to them now, made before the write, claimed by
   * `instanceId`, which makes them (a worker that stops first leaves them to the recovery,
   * WebhookQueue). Each with its endpoint, in the order of the writes.
   *
   * The endpoints are locked (KEY SHARE) until the attempts are in: a redelivery, which numbers its
   * attempt one more than the highest under the endpoint's lock, takes turns with it, so that the
   * two never both make an event's first attempt (which exists once per endpoint and event).
   */
  async takeOutbox(
    writes: number,
    instanceId: string,
  ): Promise<{ writes: number; attempts: { delivery: DeliveryRow; endpoint: WebhookEndpointRow }[] }> {
    const [taken] = await this.transactions.query<{
      writes: number;
      attempts: (DeliveryRow & { endpoint: WebhookEndpointRow })[];
    }>(
      `WITH taken AS (
         DELETE FROM webhook_outbox o
          WHERE (o.id, o.workspace_id) IN (SELECT id, workspace_id FROM webhook_outbox WHERE due_at <= statement_timestamp()
                                            ORDER BY due_at ${firstRowsSql('$1')} FOR UPDATE SKIP LOCKED)
         RETURNING o.id, o.workspace_id, o.event_ids, o.types, o.written_at),
       wanted AS (
         SELECT w.id AS endpoint_id, e.id AS event_id, t.workspace_id, t.id AS write, e.ordinal
           FROM taken t CROSS JOIN LATERAL unnest(t.event_ids, t.types) WITH ORDINALITY AS e(id, type, ordinal)
           JOIN webhook_endpoints w ON w.workspace_id = t.workspace_id AND w.status = 'ENABLED' AND w.created_at <= t.written_at
                                   AND (e.type = ANY(w.event_types) OR '*' = ANY(w.event_types))
            FOR KEY SHARE OF w),
       inserted AS (
         INSERT INTO webhook_deliveries (endpoint_id, event_id, attempt, status, scheduled_at, created_at, claimed_by, claimed_at, workspace_id)
         SELECT endpoint_id, event_id, 1, 'PENDING', statement_timestamp(), statement_timestamp(), $2, statement_timestamp(), workspace_id
           FROM wanted ORDER BY write, ordinal, endpoint_id
         ON CONFLICT (endpoint_id, event_id, workspace_id) WHERE attempt = 1 DO NOTHING
         RETURNING ${DELIVERY_COLUMNS})
       SELECT (SELECT count(*)::int FROM taken) AS writes,
              coalesce((SELECT json_agg(c ORDER BY c.id)
                          FROM (SELECT i.*, to_json(w) AS endpoint FROM inserted i JOIN webhook_endpoints w ON w.id = i.endpoint_id) c),
                       '[]') AS attempts`,
      [writes, instanceId],
      { prepare: 'webhook-outbox-take' },
    );
    return {
      writes: taken.writes,
      attempts: taken.attempts.map(({ endpoint, ...delivery }) => ({
        delivery: reviveDelivery(delivery),
        endpoint: revive(endpoint as WebhookEndpointRow & { created_at: string; updated_at: string }),
      })),
    };
  }

  /** `created_at` is stamped by the database clock, which the fan-out compares it with, in milliseconds. */
  async insertEndpoint(endpoint: {
    id: string;
    workspaceId: string;
    memberId: string;
    apiKeyId: string;
    url: string;
    eventTypes: string[];
    description: string | null;
    secret: string;
  }): Promise<WebhookEndpointRow> {
    const result = await this.endpoints
      .createQueryBuilder()
      .insert()
      .values({ ...endpoint, status: 'ENABLED', createdAt: STATEMENT_TIME_MS, updatedAt: STATEMENT_TIME_MS })
      .returning('*')
      .updateEntity(false)
      .execute();
    return (result.raw as WebhookEndpointRow[])[0];
  }

  /**
   * The endpoint; with `lock`, its row stays locked until the ambient transaction ends, so that an
   * update, a redelivery and a delete of one endpoint take turns. Undefined when not found.
   */
  async findEndpoint(
    workspaceId: string,
    id: string,
    { lock = false }: RowLock = {},
  ): Promise<WebhookEndpointRow | undefined> {
    const endpoint = await this.endpoints.findOne({
      where: { id, workspaceId },
      ...(lock && { lock: { mode: 'pessimistic_write' as const } }),
    });
    return endpoint ? endpointRow(endpoint) : undefined;
  }

  /** A page of the workspace's endpoints, newest first, with their count (see keysetPageSql). */
  async pageEndpoints(workspaceId: string, page: PageRequest): Promise<PageRead<WebhookEndpointRow>> {
    const params = new SqlParameterList();
    const where = `workspace_id = ${params.add(workspaceId)}`;
    const [result] = await this.transactions.query<{
      total: number;
      rows: (WebhookEndpointRow & { created_at: string; updated_at: string })[];
    }>(
      keysetPageSql(
        { columns: ENDPOINT_COLUMNS, from: 'webhook_endpoints', where, key: ['created_at', 'id'] },
        page,
        params,
      ),
      params.values,
    );
    const read = endPage(page, result, (row) => ({ at: row.created_at, id: row.id }));
    return { ...read, rows: read.rows.map((row) => revive(row)) };
  }

  /**
   * Changes what is given (undefined keeps it) and stamps the update; a status set to ENABLED
   * clears `disabled_reason` and the failing streak. Undefined when not found.
   */
  async updateEndpoint(
    workspaceId: string,
    id: string,
    change: {
      url?: string;
      eventTypes?: string[];
      description?: string | null;
      status?: WebhookStatus;
      disabledReason?: string | null;
    },
  ): Promise<WebhookEndpointRow | undefined> {
    const set: QueryDeepPartialEntity<WebhookEndpointEntity> = { updatedAt: STATEMENT_TIME, version: NEXT_VERSION };
    if (change.url !== undefined) set.url = change.url;
    if (change.eventTypes !== undefined) set.eventTypes = change.eventTypes;
    if (change.description !== undefined) set.description = change.description;
    if (change.status !== undefined) {
      set.status = change.status;
      set.disabledReason = change.status === 'DISABLED' ? (change.disabledReason ?? null) : null;
      if (change.status === 'ENABLED') set.failingSince = null;
    }
    return this.changeEndpoint(workspaceId, id, set);
  }

  /** Deletes the endpoint and its delivery log; answers the endpoint as it was, undefined when not found. */
  async deleteEndpoint(workspaceId: string, id: string): Promise<WebhookEndpointRow | undefined> {
    const result = await this.endpoints
      .createQueryBuilder()
      .delete()
      .where({ id, workspaceId })
      .returning('*')
      .execute();
    return (result.raw as WebhookEndpointRow[])[0];
  }

  /** A new secret; the current one signs beside it until `previousUntil`. Undefined when not found. */
  async rotateSecret(
    workspaceId: string,
    id: string,
    secret: string,
    previousUntil: Date,
  ): Promise<WebhookEndpointRow | undefined> {
    return this.changeEndpoint(workspaceId, id, {
      previousSecret: () => 'secret',
      previousSecretUntil: previousUntil,
      secret,
      updatedAt: STATEMENT_TIME,
      version: NEXT_VERSION,
    });
  }

  /** Disables an endpoint the service gave up on, saying why; nothing when a person did it first. */
  async disableEndpoint(id: string, reason: string): Promise<void> {
    await this.endpoints.update(
      { id, status: 'ENABLED' },
      { status: 'DISABLED', disabledReason: reason, updatedAt: STATEMENT_TIME, version: NEXT_VERSION },
    );
  }

  /** One UPDATE of the endpoint answering its row as it is after; undefined when not found. */
  private async changeEndpoint(
    workspaceId: string,
    id: string,
    set: QueryDeepPartialEntity<WebhookEndpointEntity>,
  ): Promise<WebhookEndpointRow | undefined> {
    const result = await this.endpoints
      .createQueryBuilder()
      .update()
      .set(set)
      .where({ id, workspaceId })
      .returning('*')
      .updateEntity(false)
      .execute();
    return (result.raw as WebhookEndpointRow[])[0];
  }

  /** The attempts of an endpoint, newest first, with their count. */
  async pageDeliveries(endpointId: string, page: PageRequest): Promise<PageRead<DeliveryRow>> {
    const params = new SqlParameterList();
    const where = `endpoint_id = ${params.add(endpointId)}`;
    const [result] = await this.transactions.query<{ total: number; rows: (DeliveryRow & { created_at: string })[] }>(
      keysetPageSql(
        { columns: `${DELIVERY_COLUMNS}, created_at`, from: 'webhook_deliveries', where, key: ['created_at', 'id'] },
        page,
        params,
      ),
      params.values,
    );
    const read = endPage(page, result, (row) => ({ at: row.created_at, id: row.id }));
    return { ...read, rows: read.rows.map(reviveDelivery) };
  }

  /** A new first-of-its-kind attempt of `eventId` to the endpoint, due now (a redelivery): the trigger enqueues it. */
  async insertAttempt(endpointId: string, eventId: string, attempt: number, scheduledAt: Date): Promise<DeliveryRow> {
    const [row] = await this.transactions.query<DeliveryRow>(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, attempt, status, scheduled_at, created_at, workspace_id)
       SELECT $1, $2, $3, 'PENDING', $4, statement_timestamp(), workspace_id FROM webhook_endpoints WHERE id = $1 RETURNING ${DELIVERY_COLUMNS}`,
      [endpointId, eventId, attempt, scheduledAt],
    );
    return row;
  }

  /**
   * The highest attempt number of `eventId` to the endpoint; undefined when it was never sent that
   * event, which it may then not be sent again (a redelivery).
   */
  async highestAttempt(endpointId: string, eventId: string): Promise<number | undefined> {
    return (await this.deliveries.maximum('attempt', { endpointId, eventId })) ?? undefined;
  }

  /**
   * Claims a PENDING attempt for this instance, with its endpoint, in one statement. Undefined
   * when it is no longer PENDING, its endpoint is gone, or another instance claimed it (a fan-out
   * making it, or an instance that stopped, whose claims the recovery records as abandoned): an
   * attempt is never made by two instances at once.
   */
  async claimAttempt(
    id: string,
    instanceId: string,
  ): Promise<{ delivery: DeliveryRow; endpoint: WebhookEndpointRow } | undefined> {
    const [row] = await this.transactions.query<DeliveryRow & { endpoint: WebhookEndpointRow }>(
      `WITH claimed AS (
         UPDATE webhook_deliveries SET claimed_by = $2, claimed_at = statement_timestamp()
          WHERE id = $1 AND status = 'PENDING' AND (claimed_by IS NULL OR claimed_by = $2)
          RETURNING ${DELIVERY_COLUMNS})
       SELECT c.*, to_json(w) AS endpoint FROM claimed c JOIN webhook_endpoints w ON w.id = c.endpoint_id`,
      [id, instanceId],
      { prepare: 'webhook-claim' },
    );
    if (!row) return undefined;
    const { endpoint, ...delivery } = row;
    return { delivery: reviveDelivery(delivery), endpoint: revive(endpoint) };
  }

  /**
   * Records an attempt's outcome (once: only while it is PENDING) and when the next one is due, if
   * one is, with the endpoint's failing streak (`failingSince`: when it began, null after a
   * success), in one statement; answers whether it recorded it.
   */
  async finishAttempt(
    id: string,
    endpointId: string,
    outcome: AttemptOutcome,
    nextAttemptAt: Date | null,
    failingSince: Date | null,
  ): Promise<boolean> {
    const [{ recorded }] = await this.transactions.query<{ recorded: boolean }>(
      `WITH finished AS (
         UPDATE webhook_deliveries
            SET status = $3, response_status = $4, duration_ms = $5, error = $6, attempted_at = $7, next_attempt_at = $8
          WHERE id = $1 AND status = 'PENDING' RETURNING 1),
       streak AS (
         UPDATE webhook_endpoints SET failing_since = $9
          WHERE id = $2 AND EXISTS (SELECT 1 FROM finished) AND failing_since IS DISTINCT FROM $9)
       SELECT EXISTS (SELECT 1 FROM finished) AS recorded`,
      [
        id,
        endpointId,
        outcome.succeeded ? 'SUCCEEDED' : 'FAILED',
        outcome.responseStatus,
        outcome.durationMs,
        outcome.error,
        outcome.attemptedAt,
        nextAttemptAt,
        failingSince,
      ],
      { prepare: 'webhook-finish' },
    );
    return recorded;
  }

  /**
   * Records attempts that succeeded (each once: only while it is PENDING), ending their endpoints'
   * failing streaks, in one statement: what finishAttempt does for a success, for many.
   */
  async finishSucceeded(attempts: { id: string; outcome: AttemptOutcome }[]): Promise<void> {
    await this.transactions.query(
      `WITH outcome AS (
         SELECT * FROM unnest($1::bigint[], $2::int[], $3::int[], $4::timestamptz[]) AS o(id, response_status, duration_ms, attempted_at)),
       finished AS (
         UPDATE webhook_deliveries d
            SET status = 'SUCCEEDED', response_status = o.response_status, duration_ms = o.duration_ms, error = NULL,
                attempted_at = o.attempted_at, next_attempt_at = NULL
           FROM outcome o
          -- "Not recorded yet" rather than = 'PENDING', which would let the planner walk the partial index of the PENDING
          -- attempts (few live rows, so it looks cheap) through the entries of every attempt recorded since its last vacuum.
          WHERE d.id = o.id AND d.status NOT IN ('SUCCEEDED', 'FAILED')
          RETURNING d.endpoint_id)
       UPDATE webhook_endpoints SET failing_since = NULL WHERE id IN (SELECT endpoint_id FROM finished) AND failing_since IS NOT NULL`,
      [
        attempts.map(({ id }) => id),
        attempts.map(({ outcome }) => outcome.responseStatus),
        attempts.map(({ outcome }) => outcome.durationMs),
        attempts.map(({ outcome }) => outcome.attemptedAt),
      ],
      { prepare: 'webhook-finish-succeeded' },
    );
  }

  /** Lets go of this PENDING attempt's claim (its making threw and could not be recorded). */
  async releaseClaim(id: string): Promise<void> {
    await this.deliveries.update({ id, status: 'PENDING' }, { claimedBy: null, claimedAt: null });
  }

  /**
   * The instances holding attempts claimed before `before` that are still PENDING: an attempt
   * ends within seconds, so such a claim is an instance that stopped mid-attempt, or a slow one.
   */
  async staleClaimants(before: Date): Promise<string[]> {
    const rows = await this.deliveries
      .createQueryBuilder('d')
      .select('d.claimed_by', 'claimed_by')
      .distinct(true)
      .where({ status: 'PENDING', claimedAt: LessThan(before) })
      .getRawMany<{ claimed_by: string }>();
    return rows.map((row) => row.claimed_by);
  }

  /**
   * The PENDING attempts a stopped instance had claimed: each is marked FAILED (its outcome is
   * unknown) and followed by the next attempt, due now. Answers how many.
   */
  async requeueClaimsOf(instanceId: string): Promise<number> {
    const rows = await this.transactions.query(
      `WITH abandoned AS (
         UPDATE webhook_deliveries SET status = 'FAILED', attempted_at = claimed_at, next_attempt_at = statement_timestamp(),
                error = 'the instance making this attempt stopped before it was recorded'
          WHERE claimed_by = $1 AND status = 'PENDING'
          RETURNING endpoint_id, event_id, attempt, workspace_id)
       INSERT INTO webhook_deliveries (endpoint_id, event_id, attempt, status, scheduled_at, created_at, workspace_id)
       SELECT endpoint_id, event_id, attempt + 1, 'PENDING', statement_timestamp(), statement_timestamp(), workspace_id FROM abandoned
       RETURNING 1`,
      [instanceId],
    );
    return rows.length;
  }

  /**
   * Enqueues again the unclaimed PENDING attempts due before `before` that have no job left to make
   * them: their making threw, and so did recording its failure, which let their claim go (a claimed
   * attempt may be under way, in a fan-out; a stopped instance's claims are requeueClaimsOf's). A job that is waiting, or
   * running (taken: its `attempts` already counts this run), leaves its attempt alone. Answers how many.
   */
  async enqueueDroppedAttempts(before: Date): Promise<number> {
    const rows = await this.transactions.query(
      `SELECT webhook_delivery_job(d.id, statement_timestamp())
         FROM webhook_deliveries d
        WHERE d.status = 'PENDING' AND d.scheduled_at < $1 AND d.claimed_by IS NULL
          AND NOT EXISTS (SELECT 1 FROM graphile_worker.jobs j
                           WHERE j.key = 'webhook_delivery:' || d.id AND (j.attempts < j.max_attempts OR j.locked_at IS NOT NULL))`,
      [before],
    );
    return rows.length;
  }

  /**
   * Lets go of attempts `instanceId` claimed and has not begun (it is stopping), each enqueued as
   * a delivery job due now, for whichever worker runs next; answers how many. One recorded
   * meanwhile, or claimed by another, is left as it is.
   */
  async handOver(ids: string[], instanceId: string): Promise<number> {
    const rows = await this.transactions.query(
      `WITH released AS (
         UPDATE webhook_deliveries SET claimed_by = NULL, claimed_at = NULL
          WHERE id = ANY($1::bigint[]) AND status = 'PENDING' AND claimed_by = $2
         RETURNING id)
       SELECT webhook_delivery_job(id, statement_timestamp()) FROM released`,
      [ids, instanceId],
    );
    return rows.length;
  }

  /**
   * The attempt while it is PENDING, with its endpoint's failing streak, locked until the ambient
   * transaction ends (so that it is recorded once); undefined once it was recorded or its endpoint deleted.
   */
  async findPendingAttempt(id: string): Promise<{ delivery: DeliveryRow; failingSince: Date | null } | undefined> {
    const { entities, raw } = await this.deliveries
      .createQueryBuilder('d')
      .addSelect(
        (endpoint) => endpoint.select('w.failing_since').from(WebhookEndpointEntity, 'w').where('w.id = d.endpoint_id'),
        'endpoint_failing_since',
      )
      .where({ id, status: 'PENDING' })
      .setLock('pessimistic_write')
      .getRawAndEntities<{ endpoint_failing_since: Date | null }>();
    if (entities.length === 0) return undefined;
    return { delivery: deliveryRow(entities[0]), failingSince: raw[0].endpoint_failing_since };
  }

  /**
   * Removes up to `batch` attempts made (SUCCEEDED or FAILED) before `before`, oldest first;
   * answers how many. The log's PENDING attempts stay, whatever their age.
   */
  async pruneDeliveries(before: Date, batch: number): Promise<number> {
    const oldest = this.deliveries
      .createQueryBuilder('d')
      .select('d.id')
      .where({ status: Not('PENDING'), createdAt: LessThan(before) })
      .orderBy('d.created_at')
      .limit(batch);
    const result = await this.deliveries
      .createQueryBuilder()
      .delete()
      .where(`id IN (${oldest.getQuery()})`, oldest.getParameters())
      .execute();
    return result.affected ?? 0;
  }

  /**
   * The queue's side (graphile-worker's public `jobs` view and its force_unlock_workers): the
   * instances (worker pools) holding a delivery job they took before `before`.
   */
  async deliveryJobHoldersSince(before: Date): Promise<string[]> {
    const rows = await this.transactions.query<{ locked_by: string }>(
      `SELECT DISTINCT locked_by FROM graphile_worker.jobs WHERE task_identifier = '${DELIVERY_TASK}' AND locked_at < $1`,
      [before],
    );
    return rows.map((row) => row.locked_by);
  }

  /** Releases the jobs a stopped instance had taken, for others to take; answers how many. */
  async releaseDeliveryJobsOf(instanceId: string): Promise<number> {
    const [{ count }] = await this.transactions.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM graphile_worker.jobs WHERE locked_by = $1`,
      [instanceId],
    );
    await this.transactions.query(`SELECT graphile_worker.force_unlock_workers($1::text[])`, [[instanceId]]);
    return count;
  }
}

/** The endpoint as the service reads it: its columns as the table names them. */
function endpointRow(endpoint: WebhookEndpointEntity): WebhookEndpointRow {
  return {
    id: endpoint.id,
    workspace_id: endpoint.workspaceId,
    member_id: endpoint.memberId,
    api_key_id: endpoint.apiKeyId,
    url: endpoint.url,
    event_types: endpoint.eventTypes,
    description: endpoint.description,
    status: endpoint.status,
    disabled_reason: endpoint.disabledReason,
    secret: endpoint.secret,
    previous_secret: endpoint.previousSecret,
    previous_secret_until: endpoint.previousSecretUntil,
    failing_since: endpoint.failingSince,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
    version: endpoint.version,
  };
}

function deliveryRow(delivery: WebhookDeliveryEntity): DeliveryRow {
  return {
    id: delivery.id,
    endpoint_id: delivery.endpointId,
    event_id: delivery.eventId,
    attempt: delivery.attempt,
    status: delivery.status,
    scheduled_at: delivery.scheduledAt,
    attempted_at: delivery.attemptedAt,
    response_status: delivery.responseStatus,
    duration_ms: delivery.durationMs,
    error: delivery.error,
    next_attempt_at: delivery.nextAttemptAt,
  };
}

/** Rows read through json_agg or to_json carry their timestamps as text. */
function revive(
  row: WebhookEndpointRow & { created_at: Date | string; updated_at: Date | string },
): WebhookEndpointRow {
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    ...row,
    created_at: date(row.created_at)!,
    updated_at: date(row.updated_at)!,
    previous_secret_until: date(row.previous_secret_until),
    failing_since: date(row.failing_since),
  };
}

function reviveDelivery(row: DeliveryRow & { created_at?: unknown }): DeliveryRow {
  const date = (value: Date | string | null) => (value === null ? null : new Date(value));
  const { created_at: _createdAt, ...delivery } = row;
  return {
    ...delivery,
    id: String(delivery.id),
    scheduled_at: date(delivery.scheduled_at)!,
    attempted_at: date(delivery.attempted_at),
    next_attempt_at: date(delivery.next_attempt_at),
  };
}

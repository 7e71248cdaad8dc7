import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryFailedError } from 'typeorm';
import { firstRowsSql } from '../common/pagination/paging-sql';
import { Transactions } from '../database/transactions';
import type { SqlParameters } from './field-types/field-type';
import { SqlParameterList } from './record-filters';

/** An event as it is appended: its `position` and `occurred_at` are given by the append itself. */
export interface NewEvent {
  id: string;
  type: string;
  entityType: string;
  entityId: string;
  /** JSON text of the event's `data`. */
  data: string;
  /** JSON text of `changes` (updated events), else null. */
  changes: string | null;
  /** The member a `list.member_*` event is about. */
  memberId?: string;
}

/** An event as stored. */
export interface EventRow {
  /** A bigint, as text. */
  position: string;
  id: string;
  type: string;
  entity_type: string;
  entity_id: string;
  occurred_at: Date;
  data: Record<string, unknown>;
  changes: { fields: string[]; relationships: string[] } | null;
  member_id: string | null;
}

/**
 * What else an append writes, in its statement, for the events it appends: the webhooks module
 * inserts the first delivery attempt of each event for every endpoint subscribed to it, so that
 * deliveries are enqueued in the transaction of their events (docs/api.md §13).
 */
export interface EventDeliveries {
  /** The body of a data-modifying WITH entry; `recorded` names the appended events (`id`, `type`) of the workspace bound as `workspace`. */
  deliveriesSql(recorded: string, workspace: string): string;
}

export const EVENT_DELIVERIES = Symbol('EventDeliveries');

/** How long a feed reader waits in the append lock's queue before it steps out and tries again (see readHead). */
const READER_LOCK_WAIT_MS = 20;
const MAX_HEAD_ATTEMPTS = 100;
/** SQLSTATE of a lock not granted within lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/** SQL of the key of a workspace's append lock (see EventsRepository). */
function appendLockKeySql(workspace: string): string {
  return `hashtextextended('events:' || ${workspace}, 0)`;
}

/**
 * SQL that appends `events` of one workspace (`workspace`, bound), answering each one's `id` and
 * `type`. Each row's position is taken after the workspace's append lock is held shared (the
 * lock's subquery is read before any row is made), in the order given.
 */
function appendEventsSql(workspace: string, events: NewEvent[], params: SqlParameters): string {
  const column = (pick: (event: NewEvent) => string | null | undefined) => params.add(events.map((event) => pick(event) ?? null));
  return `INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data, changes, member_id)
    SELECT nextval('event_positions'), e.id, ${workspace}, e.type, e.entity_type, e.entity_id,
           date_trunc('milliseconds', clock_timestamp()), e.data::json, e.changes::json, e.member_id
      FROM (SELECT pg_advisory_xact_lock_shared(${appendLockKeySql(workspace)})) appending,
           unnest(${column((e) => e.id)}::text[], ${column((e) => e.type)}::text[], ${column((e) => e.entityType)}::text[],
                  ${column((e) => e.entityId)}::text[], ${column((e) => e.data)}::text[], ${column((e) => e.changes)}::text[],
                  ${column((e) => e.memberId)}::text[])
           WITH ORDINALITY AS e(id, type, entity_type, entity_id, data, changes, member_id, ordinal)
     ORDER BY e.ordinal
    RETURNING id, type`;
}

/**
 * SQL of `events`, the change feed (docs/api.md §12).
 *
 * Why a reader never skips an event: a position is a sequence value, taken when a transaction
 * appends its events, but transactions commit in another order than they take positions, so a
 * reader that passed position 7 while the transaction holding 5 was still open would never see 5.
 * Here a writer takes its positions while holding its workspace's append lock shared, until it
 * commits; a reader takes that lock exclusively, which waits for the writers holding positions to
 * commit or roll back (appending is the last statement before a commit, so that is short). Once
 * it holds the lock, every position taken so far is final, and every later one is greater (the
 * sequence has no cache: its values rise across sessions).
 */
@Injectable()
export class EventsRepository {
  constructor(
    private readonly transactions: Transactions,
    @Optional() @Inject(EVENT_DELIVERIES) private readonly deliveries?: EventDeliveries,
  ) {}

  /**
   * WITH entries that append `events` of one workspace (`workspace`, bound) and what goes with
   * them (EventDeliveries): a statement of their own (append), or part of another's WITH that
   * makes the change in the same statement (RecordsRepository.insert). Their names are
   * `recorded` and `delivering`.
   */
  appendSql(workspace: string, events: NewEvent[], params: SqlParameters): string {
    const recorded = `recorded AS (${appendEventsSql(workspace, events, params)})`;
    return this.deliveries ? `${recorded},\n delivering AS (${this.deliveries.deliveriesSql('recorded', workspace)})` : recorded;
  }

  /** Appends events of one workspace in the ambient transaction. */
  async append(workspaceId: string, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const params = new SqlParameterList();
    const workspace = params.add(workspaceId);
    const text = `WITH ${this.appendSql(workspace, events, params)} SELECT count(*) FROM recorded`;
    await this.transactions.query(text, params.values, { prepare: 'events-append' });
  }

  /**
   * The events after `after` whose entity type is among `entityTypes` (and type among `types`,
   * when given; that occurred from `occurredFrom` on, when given), oldest first, at most `limit`,
   * and the head: a position up to which every event is final (see the class), so a reader that
   * reached it may go on from there.
   *
   * The head is read under the append lock taken exclusively, in a statement of its own (its own
   * implicit transaction, so the lock is released as it ends): whatever snapshot it read, every
   * writer that held a position up to it had finished once the lock was granted. The page is then
   * read, up to the head, without the lock: readers never hold writers up for longer than that.
   */
  async read(
    workspaceId: string,
    after: string,
    filter: { entityTypes: string[]; types: string[] | null; occurredFrom?: Date | null },
    limit: number,
  ): Promise<{ events: EventRow[]; head: string }> {
    if (this.transactions.active) throw new Error('The feed is read outside any transaction: its lock must be released at once');
    const head = await this.readHead(workspaceId);
    const params = new SqlParameterList();
    const types = params.add(filter.types);
    const occurredFrom = params.add(filter.occurredFrom ?? null);
    const events = await this.transactions.query<EventRow>(
      // Ordered by the column, not by the text the rows carry it as (which would put 10 before 9).
      `SELECT e.position::text AS position, e.id, e.type, e.entity_type, e.entity_id, e.occurred_at, e.data, e.changes, e.member_id
         FROM events e
        WHERE e.workspace_id = ${params.add(workspaceId)} AND e.position > ${params.add(after)}::bigint AND e.position <= ${params.add(head)}::bigint
          AND e.entity_type = ANY(${params.add(filter.entityTypes)}::text[])
          AND (${types}::text[] IS NULL OR e.type = ANY(${types}::text[]))
          AND (${occurredFrom}::timestamptz IS NULL OR e.occurred_at >= ${occurredFrom}::timestamptz)
        ORDER BY e.position ${firstRowsSql(params.add(limit))}`,
      params.values,
      { prepare: 'events-read' },
    );
    return { events, head };
  }

  /**
   * The head (see read). The reader waits for the lock at most READER_LOCK_WAIT_MS at a time, then
   * steps out of the lock's queue and tries again: while it waits, writers asking for the lock
   * queue behind it, and one of them may hold what a holder of the lock waits for (a create holds
   * the lock from the middle of its statement, whose next step may wait on a row another
   * transaction holds until its own append): PostgreSQL would end that cycle only after a second,
   * by aborting one of them, possibly a write.
   */
  private async readHead(workspaceId: string): Promise<string> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        // set_config comes first in the list: the wait it bounds is the lock's, in the same implicit transaction.
        const [{ head }] = await this.transactions.query<{ head: string }>(
          `SELECT set_config('lock_timeout', '${READER_LOCK_WAIT_MS}ms', true) AS bounded,
                  pg_advisory_xact_lock(${appendLockKeySql('$1')}) IS NULL AS locked,
                  coalesce((SELECT max(position) FROM events WHERE workspace_id = $1), 0)::text AS head`,
          [workspaceId],
          { prepare: 'events-head' },
        );
        return head;
      } catch (error) {
        const code = error instanceof QueryFailedError ? (error.driverError as { code?: string }).code : undefined;
        if (code !== LOCK_NOT_AVAILABLE || attempt === MAX_HEAD_ATTEMPTS) throw error;
        await sleep(randomInt(1, 2 * READER_LOCK_WAIT_MS));
      }
    }
  }

  /** The event `id` of the workspace, as stored. */
  async find(workspaceId: string, id: string): Promise<EventRow | undefined> {
    const [row] = await this.transactions.query<EventRow>(
      `SELECT position::text AS position, id, type, entity_type, entity_id, occurred_at, data, changes, member_id
         FROM events WHERE id = $1 AND workspace_id = $2`,
      [id, workspaceId],
      { prepare: 'events-find' },
    );
    return row;
  }

  /** Removes up to `batch` events that occurred before `before`; answers how many. */
  async prune(before: Date, batch: number): Promise<number> {
    const rows = await this.transactions.query(
      `DELETE FROM events WHERE (workspace_id, position) IN (SELECT workspace_id, position FROM events WHERE occurred_at < $1 ${firstRowsSql('$2')}) RETURNING 1`,
      [before, batch],
    );
    return rows.length;
  }
}

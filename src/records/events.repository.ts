import { Injectable } from '@nestjs/common';
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
  /** The id of the transaction that appended it (an xid8, as text): the feed's order is (xid, position). */
  xid: string;
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
 * What else an append does, in its statement, for the events it appends: the webhooks module
 * enqueues one job that fans them out to the endpoints subscribed to them (docs/api.md §13), in
 * the transaction of the events. Registered at module init (EventsRepository.follow).
 */
export interface AppendFollower {
  /**
   * SQL of a query answering one row whatever it does, run once per append before its events
   * are inserted; `ids` and `types` name bound text arrays of the events' ids and types, of the
   * workspace bound as `workspace`.
   */
  followSql(workspace: string, ids: string, types: string): string;
}

/** Where a feed reader stands: after the event (`xid`, `position`), both as text (see EventsRepository). */
export interface FeedKey {
  xid: string;
  position: string;
}

/**
 * SQL that appends `events` of one workspace (`workspace`, bound), answering each one's `id` and
 * `type`, after `following` (the name of a one-row WITH entry, if any) has run. Each row's
 * position is taken in the order given; its `xid` is its transaction's (the column's default).
 */
function appendEventsSql(workspace: string, events: NewEvent[], params: SqlParameters, columns: { ids: string; types: string }, following?: string): string {
  const column = (pick: (event: NewEvent) => string | null | undefined) => params.add(events.map((event) => pick(event) ?? null));
  return `INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data, changes, member_id)
    SELECT nextval('event_positions'), e.id, ${workspace}, e.type, e.entity_type, e.entity_id,
           date_trunc('milliseconds', clock_timestamp()), e.data::json, e.changes::json, e.member_id
      FROM ${following ? `${following}, ` : ''}unnest(${columns.ids}::text[], ${columns.types}::text[], ${column((e) => e.entityType)}::text[],
                  ${column((e) => e.entityId)}::text[], ${column((e) => e.data)}::text[], ${column((e) => e.changes)}::text[],
                  ${column((e) => e.memberId)}::text[])
           WITH ORDINALITY AS e(id, type, entity_type, entity_id, data, changes, member_id, ordinal)
     ORDER BY e.ordinal
    RETURNING id, type`;
}

/**
 * SQL of `events`, the change feed (docs/api.md §12).
 *
 * Why a reader never skips an event, and takes no lock: transactions commit in another order than
 * they append, so a reader that passed an event while an earlier-appended one was still
 * uncommitted would never see the latter. The feed is therefore ordered by the appending
 * transaction's id (`xid`), then by position within it, and read only below the oldest
 * transaction still in progress when the read's snapshot was taken (its xmin): every transaction
 * below it has ended, so its events are all visible to that snapshot or were rolled back, and any
 * transaction that appends later has an id at or above it. What the reader returned can thus gain
 * nothing before its last event. Writers are never waited on, nor wait: a write's events become
 * readable once the transactions that took their ids before it have ended too.
 */
@Injectable()
export class EventsRepository {
  private follower?: AppendFollower;

  constructor(private readonly transactions: Transactions) {}

  /** Has every append run `follower`'s SQL too; before the first append (a statement's text stays one per process). */
  follow(follower: AppendFollower): void {
    if (this.follower) throw new Error('The events already have their follower');
    this.follower = follower;
  }

  /**
   * WITH entries that append `events` of one workspace (`workspace`, bound) and do what follows
   * them (AppendFollower): a statement of their own (append), or part of another's WITH that makes
   * the change in the same statement (RecordsRepository.insert). The appended events are
   * `recorded`; the follower's row, `following` (the insert reads it: a WITH entry that is no
   * data-modifying statement runs only when it is read).
   */
  appendSql(workspace: string, events: NewEvent[], params: SqlParameters): string {
    const columns = { ids: params.add(events.map((event) => event.id)), types: params.add(events.map((event) => event.type)) };
    if (!this.follower) return `recorded AS (${appendEventsSql(workspace, events, params, columns)})`;
    return `following AS MATERIALIZED (${this.follower.followSql(workspace, columns.ids, columns.types)}),
      recorded AS (${appendEventsSql(workspace, events, params, columns, 'following')})`;
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
   * The events after `after` in the feed's order whose entity type is among `entityTypes` (and
   * type among `types`, when given; that occurred from `occurredFrom` on, when given), at most
   * `limit`, and the horizon: the xid below which every event is final (see the class), so that a
   * reader that read everything below it may go on from there. One statement, one snapshot: the
   * horizon is that of the snapshot the events are read in.
   */
  async read(
    workspaceId: string,
    after: FeedKey,
    filter: { entityTypes: string[]; types: string[] | null; occurredFrom?: Date | null },
    limit: number,
  ): Promise<{ events: EventRow[]; horizon: string }> {
    const params = new SqlParameterList();
    const types = params.add(filter.types);
    const occurredFrom = params.add(filter.occurredFrom ?? null);
    const rows = await this.transactions.query<EventRow & { horizon: string }>(
      // Ordered by the columns, not by the text the rows carry them as (which would put 10 before 9).
      `SELECT h.horizon::text AS horizon, e.xid::text AS xid, e.position::text AS position, e.id, e.type, e.entity_type, e.entity_id,
              e.occurred_at, e.data, e.changes, e.member_id
         FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon) h
         LEFT JOIN LATERAL (
           SELECT e.* FROM events e
            WHERE e.workspace_id = ${params.add(workspaceId)}
              AND (e.xid, e.position) > (${params.add(after.xid)}::xid8, ${params.add(after.position)}::bigint)
              AND e.xid < h.horizon
              AND e.entity_type = ANY(${params.add(filter.entityTypes)}::text[])
              AND (${types}::text[] IS NULL OR e.type = ANY(${types}::text[]))
              AND (${occurredFrom}::timestamptz IS NULL OR e.occurred_at >= ${occurredFrom}::timestamptz)
            ORDER BY e.xid, e.position ${firstRowsSql(params.add(limit))}) e ON true
        ORDER BY e.xid, e.position`,
      params.values,
      { prepare: 'events-read' },
    );
    // With no event to read, the one row is the horizon's, its event columns null.
    const events = rows.filter((row) => row.id !== null).map(({ horizon: _horizon, ...event }) => event);
    return { events, horizon: rows[0].horizon };
  }

  /** The event `id` of the workspace, as stored. */
  async find(workspaceId: string, id: string): Promise<EventRow | undefined> {
    const [row] = await this.transactions.query<EventRow>(
      `SELECT xid::text AS xid, position::text AS position, id, type, entity_type, entity_id, occurred_at, data, changes, member_id
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

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

/** SQL of the key of a workspace's append lock (see EventsRepository). */
function appendLockKeySql(workspace: string): string {
  return `hashtextextended('events:' || ${workspace}, 0)`;
}

/**
 * SQL that appends `events` of one workspace (`workspace`, bound): a statement of its own, or the
 * body of a WITH of another that makes the change in the same statement (RecordsRepository.insert).
 * Each row's position is taken after the workspace's append lock is held shared (the lock's
 * subquery is read before any row is made), in the order given.
 */
export function appendEventsSql(workspace: string, events: NewEvent[], params: SqlParameters): string {
  const column = (pick: (event: NewEvent) => string | null | undefined) => params.add(events.map((event) => pick(event) ?? null));
  return `INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data, changes, member_id)
    SELECT nextval('event_positions'), e.id, ${workspace}, e.type, e.entity_type, e.entity_id,
           date_trunc('milliseconds', clock_timestamp()), e.data::json, e.changes::json, e.member_id
      FROM (SELECT pg_advisory_xact_lock_shared(${appendLockKeySql(workspace)})) appending,
           unnest(${column((e) => e.id)}::text[], ${column((e) => e.type)}::text[], ${column((e) => e.entityType)}::text[],
                  ${column((e) => e.entityId)}::text[], ${column((e) => e.data)}::text[], ${column((e) => e.changes)}::text[],
                  ${column((e) => e.memberId)}::text[])
           WITH ORDINALITY AS e(id, type, entity_type, entity_id, data, changes, member_id, ordinal)
     ORDER BY e.ordinal`;
}

/**
 * SQL of `events`, the change feed (docs/api.md §12).
 *
 * Why a reader never skips an event: a position is a sequence value, taken when a transaction
 * appends its events, but transactions commit in another order than they take positions, so a
 * reader that passed position 7 while the transaction holding 5 was still open would never see 5.
 * Here a writer takes its positions while holding its workspace's append lock shared, until it
 * commits; a reader takes that lock exclusively, which waits for the writers holding positions to
 * commit or roll back (appending is the last statement before a commit, so that is short) and
 * keeps new ones from taking any while it reads. Everything the reader then sees is final, and
 * every later position is greater than any it saw.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly transactions: Transactions) {}

  /** Appends events of one workspace in the ambient transaction. */
  async append(workspaceId: string, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const params = new SqlParameterList();
    const workspace = params.add(workspaceId);
    await this.transactions.query(appendEventsSql(workspace, events, params), params.values, { prepare: 'events-append' });
  }

  /**
   * The events after `after` whose entity type is among `entityTypes` (and type among `types`,
   * when given; that occurred from `occurredFrom` on, when given), oldest first, at most `limit`,
   * and the workspace's last position: everything up to it is final (see the class), so a reader
   * that reached the end may go on from there.
   */
  async read(
    workspaceId: string,
    after: string,
    filter: { entityTypes: string[]; types: string[] | null; occurredFrom?: Date | null },
    limit: number,
  ): Promise<{ events: EventRow[]; head: string }> {
    return this.transactions.run(async () => {
      await this.transactions.query(`SELECT pg_advisory_xact_lock(${appendLockKeySql('$1')})`, [workspaceId]);
      const params = new SqlParameterList();
      const workspace = params.add(workspaceId);
      const types = params.add(filter.types);
      const occurredFrom = params.add(filter.occurredFrom ?? null);
      // One row per event, each with the head; one row of nulls beside the head when there is none.
      const rows = await this.transactions.query<EventRow & { head: string }>(
        `SELECT h.head::text AS head, e.*
           FROM (SELECT coalesce(max(position), 0) AS head FROM events WHERE workspace_id = ${workspace}) h
           LEFT JOIN LATERAL (
             SELECT position, id, type, entity_type, entity_id, occurred_at, data, changes, member_id FROM events
              WHERE workspace_id = ${workspace} AND position > ${params.add(after)}::bigint
                AND entity_type = ANY(${params.add(filter.entityTypes)}::text[])
                AND (${types}::text[] IS NULL OR type = ANY(${types}::text[]))
                AND (${occurredFrom}::timestamptz IS NULL OR occurred_at >= ${occurredFrom}::timestamptz)
              ORDER BY position ${firstRowsSql(params.add(limit))}) e ON true
          ORDER BY e.position`,
        params.values,
        { prepare: 'events-read' },
      );
      // The head is read before it is deleted from the rows: the first row is also the first event.
      const head = rows[0].head;
      const events = rows.filter((row) => row.position !== null);
      for (const event of events) delete (event as Partial<typeof event>).head;
      return { head, events };
    });
  }

  /** Removes up to `batch` events that occurred before `before`; answers how many. */
  async prune(before: Date, batch: number): Promise<number> {
    const rows = await this.transactions.query(
      `DELETE FROM events WHERE position IN (SELECT position FROM events WHERE occurred_at < $1 ${firstRowsSql('$2')}) RETURNING 1`,
      [before, batch],
    );
    return rows.length;
  }
}

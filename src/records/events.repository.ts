import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstRowsSql } from '../common/pagination/paging-sql';
import { Transactions } from '../database/transactions';
import type { SqlParameters } from './field-types/field-type';
import { EventSignals, SIGNALS_TRUSTED_MS } from './event-signals';
import { SqlParameterList } from './field-types/field-type';

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

/**
 * An event as stored; its `data` and `changes` as the JSON text they were appended as (the
 * JSON.stringify of the service's values, kept verbatim by the `json` columns), so that a reader
 * that passes them on as they are neither parses nor serialises them again.
 */
export interface EventRow {
  /** A bigint, as text. */
  position: string;
  id: string;
  type: string;
  entity_type: string;
  entity_id: string;
  occurred_at: Date;
  /** JSON text of the event's `data`. */
  data: string;
  /** JSON text of `changes` (`{ fields, relationships }`, updated events), else null. */
  changes: string | null;
  member_id: string | null;
}

/** The columns of an EventRow, of `events` as `e`. */
const EVENT_COLUMNS = `e.position::text AS position, e.id, e.type, e.entity_type, e.entity_id, e.occurred_at, e.data::text AS data,
  e.changes::text AS changes, e.member_id`;

/**
 * What else an append does, in its statement, for the events it appends: the webhooks module
 * leaves a row in its outbox for the endpoints subscribed to them (docs/api.md §13), in the
 * transaction of the events. Registered at module init (EventsRepository.follow).
 */
export interface AppendFollower {
  /**
   * SQL of a data-modifying statement (a WITH entry of the append's, run once whatever reads
   * it); `ids` and `types` name bound text arrays of the events' ids and types, of the workspace
   * bound as `workspace`.
   */
  followSql(workspace: string, ids: string, types: string): string;
}

/**
 * Which events a feed page holds, all decided in its statement, before its limit, so that a page
 * is short only at the end of the feed (docs/api.md §12).
 */
export interface FeedFilter {
  entityTypes: string[];
  types: string[] | null;
  occurredFrom?: Date | null;
  /** SQL true of the file id `fileId` when the reader may see that file (a hidden transcript's events are left out). */
  visibleFile: (fileId: string, params: SqlParameterList) => string;
}

/** Workspaces whose final head a process keeps (see EventsRepository.horizon); the longest unread go first. */
const MAX_KNOWN_HEADS = 10_000;

/** What a process knows of a workspace's final head since the last append it was signalled. */
interface KnownHead {
  head?: string;
  /** Until when `head` is trusted without a signal (Date.now()): SIGNALS_TRUSTED_MS from the start of its look. */
  trustedUntil?: number;
  /** The head being found (finalHead), shared by the readers that ask meanwhile. */
  finding?: Promise<string | undefined>;
}

/** The larger of two positions (bigints, as text). */
function laterOf(a: string, b: string): string {
  return BigInt(a) >= BigInt(b) ? a : b;
}

/** How long a feed reader waits, at most, for the appends in flight when it read the head (see EventsRepository.read). */
const APPENDS_WAIT_MS = 100;
/** How often it looks whether they ended meanwhile. */
const APPENDS_LOOK_MS = 2;

/** SQL of the key of a workspace's append marker (see EventsRepository). */
function appendMarkerKeySql(workspace: string): string {
  return `hashtextextended('events:' || ${workspace}, 0)`;
}

/** SQL that is true of a `pg_locks` row `l` of the append marker whose key is `key` (an advisory lock's bigint key, split in two). */
function appendMarkerLockSql(key: string): string {
  return `l.locktype = 'advisory' AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid = ((${key} >> 32) & 4294967295)::oid AND l.objid = (${key} & 4294967295)::oid`;
}

/**
 * SQL that appends `events` of one workspace (`workspace`, bound), answering each one's `id` and
 * `type`. Each row's position is taken in the order given, once the workspace's append marker is
 * held (its subquery is read before any row is made).
 */
function appendEventsSql(
  workspace: string,
  events: NewEvent[],
  params: SqlParameters,
  columns: { ids: string; types: string },
): string {
  const column = (pick: (event: NewEvent) => string | null | undefined) =>
    params.add(events.map((event) => pick(event) ?? null));
  return `INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data, changes, member_id)
    SELECT nextval('event_positions'), e.id, ${workspace}, e.type, e.entity_type, e.entity_id,
           date_trunc('milliseconds', clock_timestamp()), e.data::json, e.changes::json, e.member_id
      FROM (SELECT pg_advisory_xact_lock_shared(${appendMarkerKeySql(workspace)})) marked, unnest(${columns.ids}::text[], ${columns.types}::text[], ${column((e) => e.entityType)}::text[],
                  ${column((e) => e.entityId)}::text[], ${column((e) => e.data)}::text[], ${column((e) => e.changes)}::text[],
                  ${column((e) => e.memberId)}::text[])
           WITH ORDINALITY AS e(id, type, entity_type, entity_id, data, changes, member_id, ordinal)
     ORDER BY e.ordinal
    RETURNING id, type`;
}

/**
 * SQL of `events`, the change feed (docs/api.md §12).
 *
 * Why a reader never skips an event, and why it makes no writer wait: a position is a sequence
 * value, taken when a transaction appends its events, but transactions commit in another order
 * than they take positions, so a reader that passed position 7 while the transaction holding 5 was
 * still open would never see 5. A writer takes its positions holding its workspace's append
 * marker, an advisory lock taken shared (which nobody takes exclusively: it never waits) and held
 * until it commits. A reader takes no lock: it reads the sequence's last value (the head), then
 * which transactions hold the marker, and waits until those have ended. Every position up to the
 * head was taken by then, by a transaction that held the marker when the reader looked (it has
 * ended now) or that had ended before; one that takes the marker later takes positions above the
 * head (the sequence has no cache: its values rise across sessions). So every position up to the
 * head is final, and the page is read up to it.
 */
@Injectable()
export class EventsRepository {
  private follower?: AppendFollower;
  private readonly known = new Map<string, KnownHead>();
  private watching = false;

  constructor(
    private readonly transactions: Transactions,
    private readonly signals: EventSignals,
  ) {}

  /** Has every append run `follower`'s SQL too; before the first append (a statement's text stays one per process). */
  follow(follower: AppendFollower): void {
    if (this.follower) throw new Error('The events already have their follower');
    this.follower = follower;
  }

  /**
   * WITH entries that append `events` of one workspace (`workspace`, bound) and do what follows
   * them (AppendFollower): a statement of their own (append), or part of another's WITH that makes
   * the change in the same statement (RecordsRepository.insertRecorded). The appended events are
   * `recorded`; the follower's statement is `following`.
   */
  appendSql(workspace: string, events: NewEvent[], params: SqlParameters): string {
    const columns = {
      ids: params.add(events.map((event) => event.id)),
      types: params.add(events.map((event) => event.type)),
    };
    const recorded = `recorded AS (${appendEventsSql(workspace, events, params, columns)})`;
    if (!this.follower) return recorded;
    return `following AS (${this.follower.followSql(workspace, columns.ids, columns.types)}), ${recorded}`;
  }

  /** Appends events of one workspace in the ambient transaction. */
  async append(workspaceId: string, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const params = new SqlParameterList();
    const workspace = params.add(workspaceId);
    const text = `WITH ${this.appendSql(workspace, events, params)} SELECT count(*) FROM recorded`;
    await this.transactions.query(text, params.values, { prepare: 'events-append' });
    this.appended(workspaceId);
  }

  /**
   * To be called by whoever ran an append of `appendSql`'s, once its statement has run: this
   * process forgets the workspace's head once the append commits, before its caller answers, so
   * that a caller who reads the feed next on this instance finds its write without waiting for
   * the notification.
   */
  appended(workspaceId: string): void {
    this.transactions.afterCommit(() => this.signals.appended(workspaceId));
  }

  /**
   * The events after `after` whose entity type is among `entityTypes` (and type among `types`,
   * when given; that occurred from `occurredFrom` on, when given), file events only of the files
   * `visibleFile` holds true of (SQL of a file id, binding what it needs), oldest first, at most `limit`,
   * and the head: a position up to which every event is final (see the class), so a reader that
   * reached it may go on from there. The appends of this workspace in flight are waited for
   * APPENDS_WAIT_MS at most (an append is the last statement before its commit); while one is still
   * open then (a transaction that appended and stays open), the head is `after`: nothing new yet.
   */
  async read(
    workspaceId: string,
    after: string,
    filter: FeedFilter,
    limit: number,
  ): Promise<{ events: EventRow[]; head: string }> {
    const known = await this.horizon(workspaceId);
    // A cursor made on another instance may be ahead of what this one knows: it was final there.
    const head = known === undefined ? after : laterOf(known, after);
    if (head === after) return { events: [], head };
    const params = new SqlParameterList();
    const types = params.add(filter.types);
    const occurredFrom = params.add(filter.occurredFrom ?? null);
    const events = await this.transactions.query<EventRow>(
      // Ordered by the column, not by the text the rows carry it as (which would put 10 before 9).
      `SELECT ${EVENT_COLUMNS}
         FROM events e
        WHERE e.workspace_id = ${params.add(workspaceId)} AND e.position > ${params.add(after)}::bigint AND e.position <= ${params.add(head)}::bigint
          AND e.entity_type = ANY(${params.add(filter.entityTypes)}::text[])
          AND (${types}::text[] IS NULL OR e.type = ANY(${types}::text[]))
          AND (${occurredFrom}::timestamptz IS NULL OR e.occurred_at >= ${occurredFrom}::timestamptz)
          AND (e.entity_type <> 'file' OR ${filter.visibleFile('e.entity_id', params)})
        ORDER BY e.position ${firstRowsSql(params.add(limit))}`,
      params.values,
      { prepare: 'events-read' },
    );
    return { events, head };
  }

  /** The workspace's final head, as `read` goes up to it (horizon). */
  head(workspaceId: string): Promise<string | undefined> {
    return this.horizon(workspaceId);
  }

  /**
   * The workspace's final head (finalHead), from what this process knows when no append of the
   * workspace was signalled since it found it (EventSignals): a caught-up reader's poll costs no
   * statement, and readers of one workspace at once share one look at its appends in flight. A
   * head is kept only if no signal came while it was found (the signal removes the entry it would
   * be kept in), only while the process listens (otherwise an append could go unseen), and for
   * SIGNALS_TRUSTED_MS from when its look began (a signal can be lost).
   */
  private horizon(workspaceId: string): Promise<string | undefined> {
    this.watch();
    if (!this.signals.listening) return this.finalHead(workspaceId);
    let entry = this.known.get(workspaceId);
    if (entry) {
      // Read again: it goes last among those that are dropped first.
      this.known.delete(workspaceId);
    } else {
      entry = {};
      if (this.known.size >= MAX_KNOWN_HEADS) this.known.delete(this.known.keys().next().value!);
    }
    this.known.set(workspaceId, entry);
    if (entry.head !== undefined && Date.now() < entry.trustedUntil!) return Promise.resolve(entry.head);
    const kept = entry;
    if (!kept.finding) {
      const trustedUntil = Date.now() + SIGNALS_TRUSTED_MS;
      kept.finding = this.finalHead(workspaceId)
        .then((head) => {
          if (head !== undefined && this.known.get(workspaceId) === kept && this.signals.listening) {
            kept.head = head;
            kept.trustedUntil = trustedUntil;
          }
          return head;
        })
        .finally(() => (kept.finding = undefined));
    }
    return kept.finding;
  }

  /** Forgets a workspace's head on each append signalled (all of them when appends may have been missed). */
  private watch(): void {
    if (this.watching) return;
    this.watching = true;
    this.signals.subscribe((workspaceId) => {
      if (workspaceId === undefined) this.known.clear();
      else this.known.delete(workspaceId);
    });
  }

  /**
   * The head (see the class), once the transactions that held the workspace's append marker when
   * it was read have ended; undefined when one has not within APPENDS_WAIT_MS. The sequence is read
   * before the marker's holders: the subquery of holders refers to it, so it runs after.
   */
  private async finalHead(workspaceId: string): Promise<string | undefined> {
    const [{ head, holders }] = await this.transactions.query<{ head: string; holders: string[] }>(
      `SELECT s.head::text AS head,
              ARRAY(SELECT l.virtualtransaction FROM pg_locks l
                     WHERE s.head IS NOT NULL AND ${appendMarkerLockSql(appendMarkerKeySql('$1'))}) AS holders
         FROM (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS head FROM event_positions) s`,
      [workspaceId],
      { prepare: 'events-head' },
    );
    for (let waited = 0; holders.length > 0; waited += APPENDS_LOOK_MS) {
      if (waited >= APPENDS_WAIT_MS) return undefined;
      await sleep(APPENDS_LOOK_MS);
      const [{ open }] = await this.transactions.query<{ open: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_locks l WHERE l.virtualtransaction = ANY($2::text[]) AND ${appendMarkerLockSql(appendMarkerKeySql('$1'))}) AS open`,
        [workspaceId, holders],
        { prepare: 'events-appends-open' },
      );
      if (!open) break;
    }
    return head;
  }

  /** The event `id` of the workspace, as stored. */
  async find(workspaceId: string, id: string): Promise<EventRow | undefined> {
    const [row] = await this.transactions.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = $1 AND e.workspace_id = $2`,
      [id, workspaceId],
      { prepare: 'events-find' },
    );
    return row;
  }

  /** The events of the workspace among `ids`, as stored. */
  async findAll(workspaceId: string, ids: string[]): Promise<EventRow[]> {
    return this.transactions.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = ANY($1::text[]) AND e.workspace_id = $2`,
      [ids, workspaceId],
      { prepare: 'events-find-all' },
    );
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

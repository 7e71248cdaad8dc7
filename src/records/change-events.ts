import { Injectable } from '@nestjs/common';
import { newId } from '../common/ids';
import { Transactions } from '../database/transactions';
import { AppendListener, EventSignals } from './event-signals';
import { AppendFollower, EventRow, EventsRepository, FeedFilter, NewEvent } from './events.repository';

/** What an `updated` event says changed: field and relationship keys. */
export interface EventChanges {
  fields: string[];
  relationships: string[];
}

/** A change to record, with the entity as a read of it returns it right after the change. */
export interface Change {
  workspaceId: string;
  entityType: string;
  entityId: string;
  /** `created`, `updated`, or another action of the type (`member_added`, `completed`…). */
  action: string;
  data: unknown;
  changes?: EventChanges;
  /** The member of a `list.member_*` event. */
  memberId?: string;
}

const BUFFER = Symbol('change events of this transaction');
/** Actions that describe an entity's state: a transaction records one of them per entity (see record). */
const STATE_ACTIONS = new Set(['created', 'updated']);

function union(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])];
}

/**
 * The change events (docs/api.md §12), the only way other modules reach them: recorded here, and
 * read back by the event feed and the webhooks (read, find), pruned past retention, followed by
 * the webhooks' fan-out (follow).
 *
 * Records change events in the transaction of the change: they are kept with
 * the transaction and appended just before it commits, so a write that rolls back leaves none, and
 * the append lock (EventsRepository) is held only for the commit.
 *
 * A transaction records one state event per entity: created then updated is the creation, two
 * updates are one update whose changes are both's; its `data` is the entity as the transaction
 * leaves it (every change of an entity is recorded, the last one with its final state). Other actions (list members, files leaving PENDING) are recorded as they come.
 */
@Injectable()
export class ChangeEvents {
  constructor(
    private readonly transactions: Transactions,
    private readonly events: EventsRepository,
    private readonly signals: EventSignals,
  ) {}

  /** Records a change, in the ambient transaction (there must be one). */
  record(change: Change): void {
    const buffer = this.transactions.keep(BUFFER, () => {
      const made = new Map<string, Change>();
      this.transactions.beforeCommit(() => this.flush([...made.values()]));
      return made;
    });
    if (!STATE_ACTIONS.has(change.action)) {
      buffer.set(`${buffer.size}`, change);
      return;
    }
    const key = `${change.entityType}:${change.entityId}`;
    const earlier = buffer.get(key);
    if (!earlier) {
      buffer.set(key, change);
      return;
    }
    const changes =
      earlier.changes && change.changes
        ? {
            fields: union(earlier.changes.fields, change.changes.fields),
            relationships: union(earlier.changes.relationships, change.changes.relationships),
          }
        : undefined;
    buffer.set(key, { ...change, action: earlier.action, changes: earlier.action === 'created' ? undefined : changes });
  }

  /** Whether the ambient transaction has created this entity (a later change of it is part of its creation). */
  createdHere(entityType: string, entityId: string): boolean {
    return this.transactions.kept<Map<string, Change>>(BUFFER)?.get(`${entityType}:${entityId}`)?.action === 'created';
  }

  /** Has every append run `follower`'s SQL too (EventsRepository.follow); before the first append. */
  follow(follower: AppendFollower): void {
    this.events.follow(follower);
  }

  /** A page of a workspace's feed and its head (EventsRepository.read says what is final). */
  read(
    workspaceId: string,
    after: string,
    filter: FeedFilter,
    limit: number,
  ): Promise<{ events: EventRow[]; head: string }> {
    return this.events.read(workspaceId, after, filter, limit);
  }

  /**
   * A position up to which every event of the workspace is final (the feed's present end); undefined
   * while an append holds it back longer than a read waits (EventsRepository.read).
   */
  head(workspaceId: string): Promise<string | undefined> {
    return this.events.head(workspaceId);
  }

  /** Calls `listener` on each append signalled to this process (EventSignals), until the answered function is called. */
  onAppended(listener: AppendListener): () => void {
    return this.signals.subscribe(listener);
  }

  /** The event `id` of the workspace, as stored. */
  find(workspaceId: string, id: string): Promise<EventRow | undefined> {
    return this.events.find(workspaceId, id);
  }

  /** The events of the workspace among `ids` still kept, as stored. */
  findAll(workspaceId: string, ids: string[]): Promise<EventRow[]> {
    return this.events.findAll(workspaceId, ids);
  }

  /** Removes up to `batch` events that occurred before `before`; answers how many. */
  prune(before: Date, batch: number): Promise<number> {
    return this.events.prune(before, batch);
  }

  /** The event of a change, for a statement that appends it itself. */
  static eventOf(change: Change): NewEvent {
    return {
      id: newId('event'),
      type: `${change.entityType}.${change.action}`,
      entityType: change.entityType,
      entityId: change.entityId,
      data: JSON.stringify(change.data),
      changes: change.changes ? JSON.stringify(change.changes) : null,
      memberId: change.memberId,
    };
  }

  private async flush(changes: Change[]): Promise<void> {
    const byWorkspace = new Map<string, NewEvent[]>();
    for (const change of changes) {
      const events = byWorkspace.get(change.workspaceId) ?? [];
      events.push(ChangeEvents.eventOf(change));
      byWorkspace.set(change.workspaceId, events);
    }
    // One workspace at a time, in one order, so that two transactions never wait on each other's append locks.
    for (const workspaceId of [...byWorkspace.keys()].sort())
      await this.events.append(workspaceId, byWorkspace.get(workspaceId)!);
  }
}

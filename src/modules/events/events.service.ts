import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { insufficientScope, type Scope } from '../../common/auth/scopes';
import { ApiError } from '../../common/errors/api-error';
import { AppConfig } from '../../config/app-config';
import { DefinitionsService } from '../../records/definitions.service';
import type { EntityEnvelopeDto } from '../../records/entity-envelope';
import { readScopeOf } from '../../records/object-type';
import { NON_RECORD_TYPES } from '../../records/system-types';
import { ChangeEvents } from '../../records/change-events';
import type { EventRow } from '../../records/events.repository';
import { FilesService } from '../files/files.service';
import type { MeetingDto } from '../meetings/meeting.dto';
import { MeetingsService } from '../meetings/meetings.service';
import { SerializedJson } from '../../common/http/json-response';
import { DEFAULT_EVENTS_PAGE, type EventChangesDto, type EventsQueryDto } from './event.dto';
import { decodeFeedCursor, encodeFeedCursor, FeedCursor } from './feed-cursor';
import { FeedWaits } from './feed-waits';

const DAY_MS = 24 * 3600 * 1000;

const RECORD_ACTIONS = ['created', 'updated'];

/** What happens to the entity types that are not records. */
const NON_RECORD_ACTIONS: Record<(typeof NON_RECORD_TYPES)[number]['slug'], string[]> = {
  list: ['created', 'updated', 'member_added', 'member_removed'],
  file: ['completed', 'cancelled', 'expired'],
};

/** An event type as a key sees it: its entity type, the scope that reads it, and whether the key holds that scope. */
export interface EventTypeAccess {
  entityType: string;
  scope: Scope;
  readable: boolean;
}

/** What a feed request asks for, once its query and cursor are read. */
interface FeedRequest {
  after: string;
  /**
   * A read from the feed's start begins at the oldest event within retention: older ones, not
   * pruned yet (the prune runs hourly), would make a cursor already older than retention.
   */
  occurredFrom: Date | null;
  types: string[] | null;
  limit: number;
}

/** Event types in a message: at most three by name. */
export function namedTypes(types: string[]): string {
  return types.length > 3 ? `${types.slice(0, 3).join(', ')} and ${types.length - 3} more` : types.join(', ');
}

function sameTypes(a: string[] | null, b: string[] | null): boolean {
  return a === b || (a !== null && b !== null && a.length === b.length && a.every((type, index) => type === b[index]));
}

/**
 * The change feed (docs/api.md §12): a workspace's events oldest first, along a chain of cursors
 * that never skips one and never repeats one (EventsRepository says why), filtered to the entity
 * types the caller's key may read, meetings redacted and hidden transcripts left out for the
 * caller as its reads would be at the moment it reads the feed.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: ChangeEvents,
    private readonly definitions: DefinitionsService,
    private readonly meetings: MeetingsService,
    private readonly files: FilesService,
    private readonly config: AppConfig,
    private readonly waits: FeedWaits,
  ) {}

  /**
   * A page of the feed (an EventPageDto), serialised: its events' data are the stored JSON texts
   * (see eventsJsonFor). With `wait`, a page that would be empty waits for events (FeedWaits);
   * `gone` aborts when the caller has closed the connection.
   */
  async feed(caller: AuthContext, query: EventsQueryDto, gone: AbortSignal): Promise<SerializedJson> {
    const readable = await this.eventTypesOf(caller);
    const request = await this.readRequest(caller, query, readable);
    const entityTypes = [
      ...new Set([...readable.values()].filter((entry) => entry.readable).map((entry) => entry.entityType)),
    ];
    const filter = {
      entityTypes,
      types: request.types,
      occurredFrom: request.occurredFrom,
      visibleFile: this.files.visibleRestriction(caller),
    };
    const { events, head } = await this.waits.until(
      caller.workspaceId,
      query.wait ?? 0,
      () => this.events.read(caller.workspaceId, request.after, filter, request.limit),
      (page) => page.events.length > 0,
      gone,
    );
    // A full page goes on after its last event; a shorter one reached the end, where everything up to the head is final.
    const full = events.length === request.limit;
    const next: FeedCursor = {
      workspaceId: caller.workspaceId,
      after: full ? events[events.length - 1].position : head,
      types: request.types,
      limit: request.limit,
      readAt: full ? events[events.length - 1].occurred_at.getTime() : Date.now(),
    };
    const data = (await this.eventsJsonFor(caller, events)).join(',');
    return new SerializedJson(
      `{"object":"list","data":[${data}],"nextCursor":${JSON.stringify(encodeFeedCursor(next))}}`,
    );
  }

  /**
   * Every event type of the workspace, with whether the caller's key may read it: `types` naming
   * an unknown one is refused, one it may not read is a missing scope.
   */
  async eventTypesOf(caller: AuthContext): Promise<Map<string, EventTypeAccess>> {
    const types = new Map<string, EventTypeAccess>();
    const add = (entityType: string, actions: string[], scope: Scope) => {
      for (const action of actions)
        types.set(`${entityType}.${action}`, { entityType, scope, readable: caller.scopes.has(scope) });
    };
    for (const type of (await this.definitions.typesOf(caller)).values()) {
      if (type.slug === 'member') continue;
      add(type.slug, RECORD_ACTIONS, readScopeOf(type));
    }
    for (const { slug, readScope } of NON_RECORD_TYPES) add(slug, NON_RECORD_ACTIONS[slug], readScope);
    return types;
  }

  private async readRequest(
    caller: AuthContext,
    query: EventsQueryDto,
    readable: Map<string, EventTypeAccess>,
  ): Promise<FeedRequest> {
    const { limit, types } = query;
    const unknown = types?.find((type) => !readable.has(type));
    if (unknown !== undefined)
      throw ApiError.invalidParameter('types', `${unknown.slice(0, 100)} is not an event type of this workspace`);
    const unreadable = types?.filter((type) => !readable.get(type)!.readable) ?? [];
    if (unreadable.length > 0) {
      throw insufficientScope(
        `Reading ${namedTypes(unreadable)} events`,
        unreadable.map((type) => readable.get(type)!.scope),
        caller.scopes,
      );
    }
    const kept = Date.now() - this.config.eventRetentionDays * DAY_MS;
    if (query.cursor === undefined)
      return { after: '0', occurredFrom: new Date(kept), types: types ?? null, limit: limit ?? DEFAULT_EVENTS_PAGE };
    const cursor = decodeFeedCursor(query.cursor);
    if (cursor.workspaceId !== caller.workspaceId)
      throw ApiError.invalidParameter('cursor', 'This cursor is of another workspace');
    if (cursor.readAt < kept) throw await this.expired(cursor);
    if ((limit !== undefined && limit !== cursor.limit) || (types !== undefined && !sameTypes(types, cursor.types))) {
      throw ApiError.invalidParameter('cursor', 'limit and types beside a cursor must be the ones it was made with');
    }
    return { after: cursor.after, occurredFrom: null, types: cursor.types, limit: cursor.limit };
  }

  /**
   * 410 `cursor_expired` for a cursor older than the events kept, with `resyncCursor`: the feed's
   * present end, of the cursor's types and limit. Were the end held back by an append in flight, a
   * cursor short of it would repeat events and one beyond it could skip some: 503 then, retried at once.
   */
  private async expired(cursor: FeedCursor): Promise<ApiError> {
    const head = await this.events.head(cursor.workspaceId);
    if (head === undefined) {
      return new ApiError(
        503,
        'database_unavailable',
        'The feed’s end is held by a write in flight: retry',
        undefined,
        {
          'Retry-After': '1',
        },
      );
    }
    const error = new ApiError(
      410,
      'cursor_expired',
      `This cursor is older than the events kept (${this.config.eventRetentionDays} days): events after it may have been ` +
        'removed. Resynchronise what you keep (read the entities again), then follow error.resyncCursor, the feed’s present end',
      'cursor',
    );
    error.resyncCursor = encodeFeedCursor({ ...cursor, after: head, readAt: Date.now() });
    return error;
  }

  /**
   * The events as the API shows them to the caller now, each an EventDto as JSON text: meetings
   * redacted, hidden transcripts left out, and a redacted meeting's changes naming only
   * relationships its redacted data shows (its fields need no such care: the one a meeting's
   * update may change, `$privacySetting`, shows). The stored JSON of the other events' data and
   * changes goes in as it is: it is the JSON.stringify of what parsing it would give back.
   */
  async eventsJsonFor(caller: AuthContext, rows: EventRow[]): Promise<string[]> {
    const meetingRows = rows.filter((row) => row.entity_type === 'meeting');
    const meetings = await this.meetings.presentAll(
      caller,
      meetingRows.map((row) => JSON.parse(row.data) as EntityEnvelopeDto),
    );
    const redacted = new Map<EventRow, MeetingDto>(meetingRows.map((row, index) => [row, meetings[index]]));
    const changesOf = (row: EventRow): string | null => {
      const meeting = redacted.get(row);
      if (!row.changes || meeting?.accessLevel !== 'METADATA') return row.changes;
      const changes = JSON.parse(row.changes) as EventChangesDto;
      return JSON.stringify({
        fields: changes.fields,
        relationships: changes.relationships.filter((key) => Object.hasOwn(meeting.relationships, key)),
      });
    };
    const fileIds = [...new Set(rows.filter((row) => row.entity_type === 'file').map((row) => row.entity_id))];
    const visibleFiles = fileIds.length > 0 ? await this.files.visibleIds(caller, fileIds) : new Set<string>();
    return rows
      .filter((row) => row.entity_type !== 'file' || visibleFiles.has(row.entity_id))
      .map((row) => {
        const meeting = redacted.get(row);
        return eventJson(row, meeting ? JSON.stringify(meeting) : row.data, changesOf(row));
      });
  }
}

/**
 * An EventDto as JSON text, its keys in the DTO's order, of `row` with `data` and `changes`
 * (JSON text, null when it has none): `changes` and `memberId` only when there are some.
 */
function eventJson(row: EventRow, data: string, changes: string | null): string {
  const text = JSON.stringify;
  return (
    `{"id":${text(row.id)},"object":"event","type":${text(row.type)},"occurredAt":"${row.occurred_at.toISOString()}",` +
    `"entityType":${text(row.entity_type)},"entityId":${text(row.entity_id)},"data":${data}` +
    `${changes ? `,"changes":${changes}` : ''}${row.member_id ? `,"memberId":${text(row.member_id)}` : ''}}`
  );
}

import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { insufficientScope } from '../../common/auth/scopes';
import { ApiError } from '../../common/errors/api-error';
import { decodeCursor, encodeCursor } from '../../common/pagination/cursor';
import { MAX_PAGE_SIZE } from '../../common/pagination/pagination';
import { DefinitionsService } from '../../records/definitions.service';
import type { EntityEnvelopeDto } from '../../records/entity-envelope';
import { toE164 } from '../../records/field-types/telephone.field-type';
import { RecordsService } from '../../records/records.service';
import { type ObjectTypeDefinition, readScopeOf } from '../../records/object-type';
import { namedTypes } from '../events/events.service';
import { MeetingsService } from '../meetings/meetings.service';
import { folded, matchesIn, termsOf } from './search-matches';
import { MAX_QUERY_LENGTH, type SearchPageDto, type SearchQueryDto, type SearchResultDto } from './search.dto';
import { SearchHit, SearchRepository } from './search.repository';

/** A fragment shorter than this has too few trigrams for the index to find it. */
const MIN_FRAGMENT_LENGTH = 3;
/** The fewest digits that find a telephone number by its end. */
const MIN_PHONE_DIGITS = 6;
const PHONE_TEXT = /^[\d\s+().\-\u2010-\u2015]+$/;
/** Types that have no records: search never covers them. */
const NOT_RECORDS = new Set(['member']);

/** Where a chain of search pages stands, and what it searches. */
interface SearchCursor {
  workspaceId: string;
  q: string;
  types: string[] | null;
  limit: number;
  /** The first page's snapshot (`pg_snapshot` text): documents it did not see are left out of the chain. */
  snapshot: string;
  score: string;
  recordId: string;
}

interface SearchRequest {
  q: string;
  types: string[] | null;
  limit: number;
  cursor: SearchCursor | null;
}

function refusedCursor(): ApiError {
  return ApiError.invalidParameter(
    'cursor',
    'cursor is not a cursor of this search: pass the nextCursor of a page unchanged',
  );
}

function decodeSearchCursor(raw: unknown): SearchCursor {
  if (typeof raw !== 'string') throw refusedCursor();
  const parsed = decodeCursor(raw);
  if (!Array.isArray(parsed) || parsed.length !== 7) throw refusedCursor();
  const [workspaceId, q, types, limit, snapshot, score, recordId] = parsed as unknown[];
  if (
    typeof workspaceId !== 'string' ||
    typeof q !== 'string' ||
    q.trim() !== q ||
    q === '' ||
    [...q].length > MAX_QUERY_LENGTH ||
    !(
      types === null ||
      (Array.isArray(types) && types.length > 0 && types.every((type) => typeof type === 'string'))
    ) ||
    !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= MAX_PAGE_SIZE) ||
    !isSnapshot(snapshot) ||
    typeof score !== 'string' ||
    !/^\d{1,6}\.\d{6}$/.test(score) ||
    typeof recordId !== 'string'
  ) {
    throw refusedCursor();
  }
  return { workspaceId, q, types: types, limit: limit as number, snapshot, score, recordId };
}

/**
 * Whether `value` is `pg_snapshot` text PostgreSQL reads: `xmin:xmax:xip,…`, xmin ≤ xip < xmax, the
 * xips ascending. A cursor is no signed token: anything else would be an error of the database.
 */
function isSnapshot(value: unknown): value is string {
  const parts =
    typeof value === 'string' && value.length <= 4096
      ? /^(\d{1,19}):(\d{1,19}):((?:\d{1,19})(?:,\d{1,19})*)?$/.exec(value)
      : null;
  if (!parts) return false;
  const xmin = BigInt(parts[1]);
  const xmax = BigInt(parts[2]);
  const xips = parts[3] ? parts[3].split(',').map(BigInt) : [];
  return (
    xmin > 0n &&
    xmin <= xmax &&
    xmax < 2n ** 63n &&
    xips.every((xip, index) => xip >= xmin && xip < xmax && (index === 0 || xip > xips[index - 1]))
  );
}

function encodeSearchCursor(cursor: SearchCursor): string {
  return encodeCursor([
    cursor.workspaceId,
    cursor.q,
    cursor.types,
    cursor.limit,
    cursor.snapshot,
    cursor.score,
    cursor.recordId,
  ]);
}

function sameTypes(a: string[] | null, b: string[] | null): boolean {
  return a === b || (a !== null && b !== null && a.length === b.length && a.every((type, index) => type === b[index]));
}

/**
 * What `q` looks for in emails, URL hosts and telephone digits: a telephone number written any way
 * (6 digits at least: fewer find too many numbers), else `q` itself when it is one word of 3
 * characters or more that holds `@` or `.` (as an email or a host does: a plain word is looked for
 * among the words, and inside every email it would cost a scan of many); null for none.
 */
function fragmentsOf(q: string): { phoneDigits: string | null; fragment: string | null } {
  if (PHONE_TEXT.test(q)) {
    const digits = (toE164(q) ?? q).replace(/\D/g, '');
    return digits.length >= MIN_PHONE_DIGITS
      ? { phoneDigits: digits, fragment: digits }
      : { phoneDigits: null, fragment: null };
  }
  const plain = q.toLowerCase();
  const fragmentLike = /[@.]/.test(plain) && !/\s/.test(plain) && plain.length >= MIN_FRAGMENT_LENGTH;
  return { phoneDigits: null, fragment: fragmentLike ? likeLiteral(plain) : null };
}

/** LIKE pattern text that matches `text` literally (the default escape character is `\`). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/**
 * Search across record types (docs/api.md §14): one ranked query over the search documents that
 * the database keeps in each write's transaction, then each result read as its own GET reads it
 * for this caller.
 */
@Injectable()
export class SearchService {
  constructor(
    private readonly repository: SearchRepository,
    private readonly definitions: DefinitionsService,
    private readonly records: RecordsService,
    private readonly meetings: MeetingsService,
  ) {}

  async search(caller: AuthContext, query: SearchQueryDto): Promise<SearchPageDto> {
    const request = this.readRequest(query);
    const definitions = await this.definitions.typesOf(caller);
    const objectTypes = this.typesToSearch(caller, definitions, request.types);
    const { phoneDigits, fragment } = fragmentsOf(request.q);
    const { hits, ranked, snapshot } = await this.repository.search({
      workspaceId: caller.workspaceId,
      objectTypes,
      text: request.q,
      fragment,
      hiddenMeetingFields: this.meetings.fullAccessRestriction(caller),
      snapshot: request.cursor?.snapshot ?? null,
      after: request.cursor ? { score: request.cursor.score, recordId: request.cursor.recordId } : null,
      limit: request.limit + 1,
    });
    const shown = hits.slice(0, request.limit);
    const last = shown[shown.length - 1];
    const nextCursor =
      hits.length > request.limit
        ? encodeSearchCursor({
            workspaceId: caller.workspaceId,
            q: request.q,
            types: request.types,
            limit: request.limit,
            snapshot: request.cursor?.snapshot ?? snapshot,
            score: last.score,
            recordId: last.recordId,
          })
        : null;
    const terms = termsOf(
      request.q,
      phoneDigits === null && fragment !== null ? folded(request.q).text : null,
      phoneDigits,
    );
    const entities = await this.entitiesOf(caller, shown);
    const shownEntities = shown.flatMap((hit) => {
      const entity = entities.get(hit.recordId);
      return entity ? [{ hit, entity }] : [];
    });
    // Which fields matched, by the documents' own rule, over each record as this caller reads it.
    const matchedFields = await this.repository.matchedFields(
      caller.workspaceId,
      { text: request.q, fragment },
      shownEntities.map(({ hit, entity }) => ({
        id: hit.recordId,
        objectType: hit.objectType,
        fields: Object.fromEntries(Object.entries(entity.fields).map(([key, { value }]) => [key, value])),
      })),
    );
    const data: SearchResultDto[] = shownEntities.map(({ hit, entity }) => {
      return {
        object: 'search_result' as const,
        entityType: hit.objectType,
        entityId: hit.recordId,
        score: Number(hit.score),
        matches: matchesIn(
          entity,
          definitions.get(hit.objectType)!,
          matchedFields.get(hit.recordId) ?? new Set(),
          terms,
        ),
        data: entity,
      };
    });
    return { object: 'list', data, totalCount: ranked, nextCursor };
  }

  private readRequest(query: SearchQueryDto): SearchRequest {
    const { q, limit, types } = query;
    if (query.cursor === undefined) return { q, types: types ?? null, limit: limit ?? MAX_PAGE_SIZE, cursor: null };
    const cursor = decodeSearchCursor(query.cursor);
    if (
      q !== cursor.q ||
      (limit !== undefined && limit !== cursor.limit) ||
      (types !== undefined && !sameTypes(types, cursor.types))
    ) {
      throw ApiError.invalidParameter('cursor', 'q, limit and types beside a cursor must be the ones it was made with');
    }
    return { q: cursor.q, types: cursor.types, limit: cursor.limit, cursor };
  }

  /** The record types searched: the ones asked for, each of which the key must read, else every one it reads. */
  private typesToSearch(
    caller: AuthContext,
    definitions: Map<string, ObjectTypeDefinition>,
    asked: string[] | null,
  ): string[] {
    const types = [...definitions.values()].filter((type) => !NOT_RECORDS.has(type.slug));
    const scopes = new Map(types.map((type) => [type.slug, readScopeOf(type)]));
    if (asked === null) {
      const readable = types.filter((type) => caller.scopes.has(scopes.get(type.slug)!)).map((type) => type.slug);
      if (readable.length === 0) throw insufficientScope('Searching', [...new Set(scopes.values())], caller.scopes);
      return readable;
    }
    const unknown = asked.find((slug) => !scopes.has(slug));
    if (unknown !== undefined)
      throw ApiError.invalidParameter('types', `${unknown.slice(0, 100)} is not a record type of this workspace`);
    const unreadable = asked.filter((slug) => !caller.scopes.has(scopes.get(slug)!));
    if (unreadable.length > 0) {
      throw insufficientScope(
        `Searching ${namedTypes(unreadable)} records`,
        unreadable.map((slug) => scopes.get(slug)!),
        caller.scopes,
      );
    }
    return asked;
  }

  /** Each hit's record as its GET reads it for the caller; one deleted since the search is left out. */
  private async entitiesOf(caller: AuthContext, hits: SearchHit[]): Promise<Map<string, EntityEnvelopeDto>> {
    const idsByType = new Map<string, string[]>();
    for (const hit of hits) idsByType.set(hit.objectType, [...(idsByType.get(hit.objectType) ?? []), hit.recordId]);
    const entities = new Map<string, EntityEnvelopeDto>();
    for (const [slug, ids] of idsByType) {
      const records = await this.records.getMany(caller, slug, ids);
      const shown = slug === 'meeting' ? await this.meetings.presentAll(caller, records) : records;
      for (const entity of shown) entities.set(entity.id, entity);
    }
    return entities;
  }
}

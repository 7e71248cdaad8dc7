import { createHash } from 'node:crypto';
import { ApiError } from '../errors/api-error';
import { isAnyId } from '../ids';
import { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from './cursor';

/**
 * A row's place in a list's order (docs/api.md §3): the timestamp the list orders by, as
 * PostgreSQL writes it (every digit it stores, with the offset), and the id that breaks its ties.
 */
export interface PageKey {
  at: string;
  id: string;
}

export type PageFilters = Record<string, string | string[]>;

/**
 * What a list cursor holds: the concrete path of the list it was read from, the page's limit and
 * filters, and the key of the last row it showed. Filters too long for a cursor (an 8 KiB one
 * holds about 6 KB of them) are carried as a digest, and must then be sent beside it.
 */
interface ListCursor {
  route: string;
  limit: number;
  /** [key, value] in the order they were given, which is the order they are read in. */
  filters?: [string, string | string[]][];
  filtersDigest?: string;
  after: [string, string];
}

/** A cursor's page, as the list route reads it. */
export interface ResumedPage {
  limit: number;
  filters: PageFilters;
  after: PageKey;
}

/** What the request gave beside its cursor. */
interface Beside {
  route: string;
  limit?: number;
  /** Empty when none were given. */
  filters: PageFilters;
  /** At most this many filters (0 on a route that takes none). */
  maxFilters: number;
  maxLimit: number;
  /** The list's rows are keyed by a bigint serial (as text), not an id (see PaginatedOptions.serialKeys). */
  serialKeys?: boolean;
}

/** A serial key as text: below 10^18, so within a bigint. */
const SERIAL_KEY = /^[1-9]\d{0,17}$/;

/**
 * A timestamp as PostgreSQL writes timestamptz in JSON: `2026-03-01T12:00:00.123456+00:00`
 * (fraction and offset seconds only when not zero), years 1 to 9999. Checked field by field
 * below as well, so that what reaches `::timestamptz` never makes PostgreSQL refuse it.
 */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:Z|[+-](\d{2})(?::(\d{2})(?::(\d{2}))?)?)$/;

function isTimestampText(text: unknown): text is string {
  const match = typeof text === 'string' ? TIMESTAMP.exec(text) : null;
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes, offsetSeconds] = match
    .slice(1)
    .map((part) => Number(part ?? 0));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return (
    year >= 1 &&
    days !== undefined &&
    day >= 1 &&
    day <= days &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 15 &&
    offsetMinutes <= 59 &&
    offsetSeconds <= 59
  );
}

/** The filters in one order whatever order they were given in, as text: what "the same filters" compares. */
function canonicalFilters(filters: PageFilters): string {
  return JSON.stringify(Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function filtersDigest(filters: PageFilters): string {
  return createHash('sha256').update(canonicalFilters(filters)).digest('base64url');
}

/** The cursor of the page after the one read with `page`, whose last row is `after`. */
export function encodeListCursor(route: string, page: { limit: number; filters: PageFilters }, after: PageKey): string {
  const cursor: ListCursor = {
    route,
    limit: page.limit,
    filters: Object.entries(page.filters),
    after: [after.at, after.id],
  };
  const full = encodeCursor(cursor);
  if (full.length <= MAX_CURSOR_LENGTH) return full;
  const { filters: _carried, ...rest } = cursor;
  return encodeCursor({ ...rest, filtersDigest: filtersDigest(page.filters) });
}

const isFilterValue = (value: unknown): value is string | string[] =>
  typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'));

/** The cursor's own members, each of its own type; undefined for anything else. */
function listCursorOf(payload: unknown, { maxFilters, maxLimit, serialKeys = false }: Beside): ListCursor | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const { route, limit, filters, filtersDigest: digest, after, ...unknown } = payload as Partial<ListCursor>;
  const wellFormed =
    Object.keys(unknown).length === 0 &&
    typeof route === 'string' &&
    Number.isInteger(limit) &&
    limit! >= 1 &&
    limit! <= maxLimit &&
    (filters === undefined) !== (digest === undefined) &&
    (digest === undefined || typeof digest === 'string') &&
    (filters === undefined ||
      (Array.isArray(filters) &&
        filters.length <= maxFilters &&
        filters.every(
          (pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && isFilterValue(pair[1]),
        ) &&
        new Set(filters.map(([key]) => key)).size === filters.length)) &&
    Array.isArray(after) &&
    after.length === 2 &&
    isTimestampText(after[0]) &&
    (serialKeys ? typeof after[1] === 'string' && SERIAL_KEY.test(after[1]) : isAnyId(after[1]));
  return wellFormed ? (payload as ListCursor) : undefined;
}

/**
 * The page a list cursor resumes, checked against the request it came with: the cursor must be
 * one the service gave (400 `invalid_parameter`, `param: "cursor"`, for anything else), of this
 * route, and a limit or filters given beside it must be the cursor's own, all of them.
 */
export function resumeListCursor(text: string, beside: Beside): ResumedPage {
  const refused = (message: string) => ApiError.invalidParameter('cursor', message);
  const cursor = listCursorOf(decodeCursor(text), beside);
  if (!cursor) throw refused('cursor is not a cursor this service gave');
  if (cursor.route !== beside.route) throw refused(`cursor is a cursor of ${cursor.route}, not of this list`);
  if (beside.limit !== undefined && beside.limit !== cursor.limit) {
    throw refused(`limit must be the cursor's own (${cursor.limit}), or be left out`);
  }
  const given = Object.keys(beside.filters).length > 0;
  let filters: PageFilters;
  if (cursor.filters) {
    filters = Object.create(null) as PageFilters;
    for (const [key, value] of cursor.filters) filters[key] = value;
    if (given && canonicalFilters(beside.filters) !== canonicalFilters(filters)) {
      throw refused('The filters beside a cursor must be the cursor’s own, all of them, or be left out');
    }
  } else {
    if (!given) throw refused('This cursor carries its filters as a digest: send them beside it');
    if (filtersDigest(beside.filters) !== cursor.filtersDigest) {
      throw refused('The filters beside a cursor must be the cursor’s own, all of them');
    }
    filters = beside.filters;
  }
  return { limit: cursor.limit, filters, after: { at: cursor.after[0], id: cursor.after[1] } };
}

import { ApiError } from '../../common/errors/api-error';
import { decodeCursor, encodeCursor } from '../../common/pagination/cursor';

/** Where a chain of feed pages stands, and what it reads. */
export interface FeedCursor {
  workspaceId: string;
  /** The position after which the next page starts (a bigint, as text). */
  after: string;
  types: string[] | null;
  limit: number;
  /**
   * Epoch milliseconds: the time of the last event passed, or of the read that reached the end of
   * the feed. Events after the cursor are no older than this, so none of them has been removed by
   * retention while this is within it.
   */
  readAt: number;
}

/** The most events a page holds: `limit` is 1 to this, in the query and in a cursor. */
export const MAX_EVENTS_PAGE = 100;

function refused(): ApiError {
  return ApiError.invalidParameter(
    'cursor',
    'cursor is not a cursor of this feed: pass the nextCursor of a page unchanged',
  );
}

export function encodeFeedCursor(cursor: FeedCursor): string {
  return encodeCursor([cursor.workspaceId, cursor.after, cursor.types, cursor.limit, cursor.readAt]);
}

/** A cursor as `encodeFeedCursor` made it; anything else is 400 `invalid_parameter`. */
export function decodeFeedCursor(raw: unknown): FeedCursor {
  // `cursor=a&cursor=b` arrives as an array: no cursor either.
  if (typeof raw !== 'string') throw refused();
  const parsed = decodeCursor(raw);
  if (!Array.isArray(parsed) || parsed.length !== 5) throw refused();
  const [workspaceId, after, types, limit, readAt] = parsed as unknown[];
  const typesValid =
    types === null || (Array.isArray(types) && types.length > 0 && types.every((type) => typeof type === 'string'));
  if (
    typeof workspaceId !== 'string' ||
    typeof after !== 'string' ||
    !/^\d{1,18}$/.test(after) ||
    !typesValid ||
    // A cursor is no signed token: anyone can make one, so its limit is checked as the query's is.
    !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= MAX_EVENTS_PAGE) ||
    !Number.isSafeInteger(readAt)
  ) {
    throw refused();
  }
  return { workspaceId, after, types: types, limit: limit as number, readAt: readAt as number };
}

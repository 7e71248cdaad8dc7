import type { PageKey } from './page-cursor';
import { MAX_PAGE_SIZE } from './pagination';

/** Binds a value and answers its placeholder (`$n`): record-filters' SqlParameterList. */
export interface BoundParameters {
  add(value: unknown): string;
}

export interface PageWindow {
  limit: number;
  offset: number;
  /** A cursor's position: the page holds the rows after this key (see afterKeySql). */
  after?: PageKey;
}

/**
 * The rows a page reads: its limit and one more, which only says whether another page follows
 * (the repository drops it: see endPage). The last page is known as such, even when the total is
 * a multiple of the limit.
 */
export function rowsRead(page: PageWindow): number {
  return page.limit + 1;
}

/**
 * The one way a page's rows are cut: every `LIMIT` and `OFFSET` with a value is written here
 * (paging-sql.spec.ts keeps it so), bound as parameters. It cuts rowsRead(page) rows.
 *
 * Except in a statement prepared for a generic plan (`plannedOnce`, Transactions.query's
 * `prepare`): PostgreSQL plans a bound LIMIT there as reading a tenth of the table, and a list of
 * 100,000 records then sorts them all instead of walking the index for 25. Its limit, an integer
 * of 2 to MAX_PAGE_SIZE + 1, is written out (at most that many statement texts), and so is the
 * first page's offset, by leaving it out (a cursor page's offset is always 0); later offsets stay
 * bound, lest each page be a text of its own.
 */
export function pagingSql(page: PageWindow, params: BoundParameters, { plannedOnce = false } = {}): string {
  if (!plannedOnce) return `LIMIT ${params.add(rowsRead(page))} OFFSET ${params.add(page.offset)}`;
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > MAX_PAGE_SIZE) {
    throw new Error(`A page limit is an integer of 1 to ${MAX_PAGE_SIZE}, not ${page.limit}`);
  }
  return `LIMIT ${rowsRead(page)}${page.offset === 0 ? '' : ` OFFSET ${params.add(page.offset)}`}`;
}

/**
 * The keyset condition of a cursor page (docs/api.md §3), to append to a WHERE (` AND …`; empty
 * without a cursor): the rows after the cursor's key in an order of `time DESC, id DESC`, as one
 * row comparison, which a B-tree index on (…, time DESC, id DESC) answers as where its scan starts,
 * so that a page costs the same at any depth. The key's timestamp is the text PostgreSQL wrote,
 * read back to the microsecond, and the id breaks ties: rows of one timestamp are neither skipped
 * nor repeated.
 */
export function afterKeySql(page: PageWindow, [time, id]: [string, string], params: BoundParameters): string {
  if (!page.after) return '';
  return ` AND (${time}, ${id}) < (${params.add(page.after.at)}::timestamptz, ${params.add(page.after.id)})`;
}

/**
 * The keyset condition of a page of a ranked list (search, docs/api.md §14), to append to a WHERE
 * (` AND …`; empty on the first page): the rows after the cursor's in an order of `score DESC, id
 * DESC`, the score an exact numeric, the id breaking ties.
 */
export function belowRankSql(
  after: { score: string; id: string } | null,
  [score, id]: [string, string],
  params: BoundParameters,
): string {
  if (!after) return '';
  return ` AND (${score}, ${id}) < (${params.add(after.score)}::numeric, ${params.add(after.id)})`;
}

/** At most `count` rows, a placeholder already bound: a page's window (offset + limit), a batch. */
export function firstRowsSql(count: string): string {
  return `LIMIT ${count}`;
}

/** What keysetPageSql reads: `key` names its order's columns as `from` has them (`f.created_at`, `f.id`). */
export interface KeysetPageQuery {
  columns: string;
  from: string;
  where: string;
  key: [time: string, id: string];
}

/**
 * A page of `from`'s rows matching `where`, newest first by `key` (time, then id, both descending),
 * after the cursor's key and cut to the page's window, with the count of every match
 * (pageWithCountSql). `where`'s placeholders are bound on `params` before this binds the cursor's
 * and the window's.
 */
export function keysetPageSql(
  { columns, from, where, key }: KeysetPageQuery,
  page: PageWindow,
  params: BoundParameters,
): string {
  const [time, id] = key;
  return pageWithCountSql(
    `SELECT count(*)::int FROM ${from} WHERE ${where}`,
    `SELECT ${columns} FROM ${from} WHERE ${where}${afterKeySql(page, key, params)}
      ORDER BY ${time} DESC, ${id} DESC ${pagingSql(page, params)}`,
    key.map((column) => column.slice(column.lastIndexOf('.') + 1)),
  );
}

/**
 * A page and the count of every match as one statement, so both come from one snapshot: a page
 * never holds more than `totalCount - offset` rows while others are being written, and a page past
 * the end still reads the count. It answers one row: `total`, and `rows`, the page's rows as a JSON
 * array (timestamps as text) in `order`. `pageRows` is a query of the page's rows, cut by
 * pagingSql; `order` its output columns, each descending, as the page is ordered.
 */
export function pageWithCountSql(count: string, pageRows: string, order: string[]): string {
  const descending = order.map((column) => `p.${column} DESC`).join(', ');
  return `SELECT (${count}) AS total,
            coalesce((SELECT json_agg(p ORDER BY ${descending}) FROM (${pageRows}) p), '[]'::json) AS rows`;
}

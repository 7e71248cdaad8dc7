import { MAX_PAGE_SIZE } from './pagination';

/** Binds a value and answers its placeholder (`$n`): record-filters' SqlParameterList. */
export interface BoundParameters {
  add(value: unknown): string;
}

export interface PageWindow {
  limit: number;
  offset: number;
}

/**
 * The one way a page's rows are cut: every `LIMIT` and `OFFSET` with a value is written here
 * (paging-sql.spec.ts keeps it so), bound as parameters.
 *
 * Except in a statement prepared for a generic plan (`plannedOnce`, Transactions.query's
 * `prepare`): PostgreSQL plans a bound LIMIT there as reading a tenth of the table, and a list of
 * 100,000 records then sorts them all instead of walking the index for 25. Its limit, an integer
 * of 1 to MAX_PAGE_SIZE, is written out (at most that many statement texts), and so is the first
 * page's offset, by leaving it out; later offsets stay bound, lest each page be a text of its own.
 */
export function pagingSql(page: PageWindow, params: BoundParameters, { plannedOnce = false } = {}): string {
  if (!plannedOnce) return `LIMIT ${params.add(page.limit)} OFFSET ${params.add(page.offset)}`;
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > MAX_PAGE_SIZE) {
    throw new Error(`A page limit is an integer of 1 to ${MAX_PAGE_SIZE}, not ${page.limit}`);
  }
  return `LIMIT ${page.limit}${page.offset === 0 ? '' : ` OFFSET ${params.add(page.offset)}`}`;
}

/** At most `count` rows, a placeholder already bound: a page's window (offset + limit), a batch. */
export function firstRowsSql(count: string): string {
  return `LIMIT ${count}`;
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

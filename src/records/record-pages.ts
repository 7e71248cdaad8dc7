import type { PageRequest } from '../common/pagination/pagination';
import { afterKeySql, firstRowsSql, pageWithCountSql, pagingSql, rowsRead } from '../common/pagination/paging-sql';
import { SqlParameterList } from './field-types/field-type';
import type { ObjectTypeDefinition } from './object-type';
import { filterSql } from './record-filters';
import { linkedCountSql, linkedSourcesSql, linksColumnSql } from './record-links.repository';

/**
 * The page statement of records (RecordsRepository.page): SQL over `records`, the counters of
 * `record_counts` and the value index, which RecordsRepository runs.
 */

/**
 * A condition that narrows a list to some records: SQL over the record id column it is given,
 * binding its values in `params` (see MeetingsRepository.fullAccessCondition).
 */
export type RecordRestriction = (recordId: string, params: SqlParameterList) => string;

/** The columns of a `records r` row as every read returns it (RecordRow, with its links). */
export const RECORD_COLUMNS = 'r.id, r.fields, r.external_id, r.created_at, r.updated_at, r.version';

/** SQL of the number of records of a type in a workspace: the sum of its counter's slots (RecordsRepository.insertMany keeps them). */
function storedCountSql(workspace: string, objectType: string): string {
  return `(SELECT coalesce(sum(count), 0)::int FROM record_counts WHERE workspace_id = ${workspace} AND object_type = ${objectType})`;
}

/**
 * SQL of rows (id, created_at) of the newest `window` (bound) records of the type that are linked
 * as `linked` says, after the cursor's key when there is one (`after`, afterKeySql on `r`): two
 * UNION ALL branches of which only one runs. `counts` names a relation holding `linked` (how many
 * records are linked) and `everything` (how many the type has). With few links the linked records
 * are fetched and sorted (about `linked` rows); with many, the type's records are walked newest
 * first, from the cursor's key, and each probed (about window × everything / linked probes): the
 * walk runs when linked² > window × everything. The fences (OFFSET 0, the per-record probe) keep
 * each branch's plan what it says, so that one plan serves every target, however many records it
 * has. `window` is the page's offset and the `rows` it reads; a cursor's page has no offset.
 */
function linkedPageSql(
  of: { workspace: string; objectType: string },
  linked: { sources: string; probe: (recordId: string) => string },
  page: { window: string; rows: number; after: string },
  counts: string,
): string {
  const { window, rows, after } = page;
  // A page past the last match is empty: neither branch reads anything for it.
  const reaches = `(SELECT c.linked > ${window}::bigint - ${rows} FROM ${counts} c)`;
  const walks = `(SELECT c.linked::numeric * c.linked > ${window}::bigint::numeric * c.everything FROM ${counts} c)`;
  return `(SELECT r.id, r.created_at
       FROM (${linked.sources} OFFSET 0) l
      CROSS JOIN LATERAL (SELECT r.id, r.created_at FROM records r
                           WHERE r.id = l.source_id AND r.workspace_id = ${of.workspace} AND r.object_type = ${of.objectType}
                          OFFSET 0) r
      WHERE ${reaches} AND NOT ${walks}${after}
      ORDER BY r.created_at DESC, r.id DESC ${firstRowsSql(window)})
    UNION ALL
    (SELECT r.id, r.created_at FROM records r
      WHERE r.workspace_id = ${of.workspace} AND r.object_type = ${of.objectType} AND ${reaches} AND ${walks}${after}
        AND ${linked.probe('r.id')}
      ORDER BY r.created_at DESC, r.id DESC ${firstRowsSql(window)})`;
}

/**
 * A page of `type`, newest first, filtered (docs/api.md §8) and optionally restricted, with the
 * count of every match, as one statement: one snapshot, one round trip, whatever the page size.
 * It answers one row: `total` and `rows` (RecordRow[] as JSON), rowsRead(page) of them at most. A
 * cursor's page starts after its key in every branch (created_at and id of `records`, or of
 * `record_values`, which carries them); the count ignores it.
 */
export function pageStatement(
  workspaceId: string,
  type: ObjectTypeDefinition,
  page: PageRequest,
  restrict?: RecordRestriction,
): { text: string; values: unknown[]; prepare: boolean } {
  const params = new SqlParameterList();
  const workspace = params.add(workspaceId);
  const objectType = params.add(type.slug);
  const filters = filterSql(type, page.filters, params);
  const restriction = restrict?.('r.id', params);
  const where = [`r.workspace_id = ${workspace}`, `r.object_type = ${objectType}`, ...filters.conditions, restriction]
    .filter(Boolean)
    .join(' AND ');
  const linkedFilter = restriction ? undefined : filters.linked;
  const linkedCount =
    linkedFilter && linkedCountSql(linkedFilter.binding, workspace, linkedFilter.linkName, linkedFilter.otherId);
  // Planning this statement cost more than running it. Prepared (parsed once per connection, and
  // planned once where PostgreSQL judges its generic plan as good) where one plan serves every
  // value: no filter, one indexed filter, one relationship filter (see linkedPageSql). Others,
  // whose best plan depends on the values, are planned for them each time.
  const prepare =
    !restriction && (filters.conditions.length === 0 || filters.indexed !== undefined || linkedCount !== undefined);
  const paging = pagingSql(page, params, { plannedOnce: prepare });
  const after = (table: string, id = 'id') => afterKeySql(page, [`${table}.created_at`, `${table}.${id}`], params);
  let count: string;
  let pageRows: string;
  let withCounts = '';
  if (linkedFilter && linkedCount) {
    // One relationship filter: counted from the link counts, paged by whichever way reads fewer rows.
    withCounts = `WITH counts AS MATERIALIZED (SELECT ${linkedCount} AS linked, ${storedCountSql(workspace, objectType)} AS everything) `;
    count = `SELECT linked FROM counts`;
    const window = params.add(page.offset + rowsRead(page));
    const linked = linkedPageSql(
      { workspace, objectType },
      linkedSourcesSql(linkedFilter.linkName, linkedFilter.otherId),
      { window, rows: rowsRead(page), after: after('r') },
      'counts',
    );
    pageRows = `SELECT ${RECORD_COLUMNS}, ${linksColumnSql(type, params)}
      FROM (SELECT id, created_at FROM (${linked}) linked ORDER BY created_at DESC, id DESC ${paging}) page
      JOIN records r ON r.id = page.id`;
  } else if (filters.indexed && !restriction) {
    // One indexed filter: count and page from the value index, read only the page's records.
    const matches = `SELECT DISTINCT v.record_id, v.created_at FROM record_values v
       WHERE v.workspace_id = ${workspace} AND v.object_type = ${objectType}
         AND v.field_key = ${filters.indexed.fieldKey} AND ${filters.indexed.probe}`;
    count = `SELECT count(*)::int FROM (${matches}) m`;
    // The page's few records are rechecked by the field type's own condition, not the index again.
    pageRows = `SELECT ${RECORD_COLUMNS}, ${linksColumnSql(type, params)}
      FROM (${matches}${after('v', 'record_id')} ORDER BY created_at DESC, record_id DESC ${paging}) m
      JOIN records r ON r.id = m.record_id
     WHERE r.workspace_id = ${workspace} AND r.object_type = ${objectType} AND ${filters.indexed.recheck}`;
  } else {
    count =
      filters.conditions.length > 0 || restriction
        ? `SELECT count(*)::int FROM records r WHERE ${where}`
        : `SELECT ${storedCountSql(workspace, objectType)}`;
    // The page's ids first, then the rows and links of those only: rows an offset skips are never read whole.
    pageRows = `SELECT ${RECORD_COLUMNS}, ${linksColumnSql(type, params)}
      FROM (SELECT r.id FROM records r WHERE ${where}${after('r')} ORDER BY r.created_at DESC, r.id DESC ${paging}) page
      JOIN records r ON r.id = page.id`;
  }
  return {
    text: `${withCounts}${pageWithCountSql(count, pageRows, ['created_at', 'id'])}`,
    values: params.values,
    prepare,
  };
}

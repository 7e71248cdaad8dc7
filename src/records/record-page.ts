import type { PageRequest } from '../common/pagination/pagination';
import type { ObjectTypeDefinition } from './object-type';
import { filterSql, SqlParameterList } from './record-filters';
import { linksColumnSql } from './record-links.repository';

/**
 * A condition that narrows a list to some records: SQL over the record id column it is given,
 * binding its values in `params` (see MeetingsRepository.fullAccessCondition).
 */
export type RecordRestriction = (recordId: string, params: SqlParameterList) => string;

export const RECORD_COLUMNS = 'r.id, r.fields, r.external_id, r.created_at, r.updated_at';

/** SQL of the number of records of a type in a workspace as the type's counter holds it (RecordsRepository.insert keeps it). */
export function storedCountSql(workspace: string, objectType: string): string {
  return `coalesce((SELECT count::int FROM record_counts WHERE workspace_id = ${workspace} AND object_type = ${objectType}), 0)`;
}

/**
 * A page of `type`, newest first, filtered (docs/api.md §8) and optionally restricted, with the
 * count of every match, as one statement: one snapshot, one round trip, whatever the page size.
 * It answers one row: `total` and `rows` (RecordRow[] as JSON).
 */
export function pageStatement(
  workspaceId: string,
  type: ObjectTypeDefinition,
  page: PageRequest,
  restrict?: RecordRestriction,
): { text: string; values: unknown[] } {
  const params = new SqlParameterList();
  const workspace = params.add(workspaceId);
  const objectType = params.add(type.slug);
  const filters = filterSql(type, page.filters, params);
  const restriction = restrict?.('r.id', params);
  const where = [`r.workspace_id = ${workspace}`, `r.object_type = ${objectType}`, ...filters.conditions, restriction]
    .filter(Boolean)
    .join(' AND ');
  const paging = `LIMIT ${page.limit} OFFSET ${page.offset}`;
  let count: string;
  let pageRows: string;
  if (filters.indexed && !restriction) {
    // One indexed filter: count and page from the value index, read only the page's records.
    const matches = `SELECT DISTINCT v.record_id, v.created_at FROM record_values v
       WHERE v.workspace_id = ${workspace} AND v.object_type = ${objectType}
         AND v.field_key = ${filters.indexed.fieldKey} AND ${filters.indexed.probe}`;
    count = `SELECT count(*)::int FROM (${matches}) m`;
    // The page's few records are read with the full conditions too, which also binds every parameter.
    pageRows = `SELECT ${RECORD_COLUMNS}, ${linksColumnSql(type, params)}
      FROM (${matches} ORDER BY created_at DESC, record_id DESC ${paging}) m JOIN records r ON r.id = m.record_id
     WHERE ${where}`;
  } else {
    count =
      filters.conditions.length > 0 || restriction
        ? `SELECT count(*)::int FROM records r WHERE ${where}`
        : `SELECT ${storedCountSql(workspace, objectType)}`;
    pageRows = `SELECT ${RECORD_COLUMNS}, ${linksColumnSql(type, params)} FROM records r WHERE ${where}
      ORDER BY r.created_at DESC, r.id DESC ${paging}`;
  }
  return {
    text: `SELECT (${count}) AS total,
            coalesce((SELECT json_agg(p ORDER BY p.created_at DESC, p.id DESC) FROM (${pageRows}) p), '[]'::json) AS rows`,
    values: params.values,
  };
}

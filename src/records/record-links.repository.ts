import { Injectable } from '@nestjs/common';
import { Transactions } from '../database/transactions';
import { SqlParameterList, type SqlParameters } from './field-types/field-type';
import type { LinkBinding, ObjectTypeDefinition } from './object-type';

/** A link as a record's `links` column holds it: [the record's end, link name, the other record's id]. */
export type LinkEnd = ['source' | 'target', string, string];

/** A link of some record: [the record's id, its end, link name, the other record's id]. */
export type RecordLink = [string, 'source' | 'target', string, string];

function linkColumns(links: RecordLink[]): string[][] {
  return [0, 1, 2, 3].map((index) => links.map((link) => link[index]));
}

/** The columns of `record_links` seen from one end: the record's own and the other record's. */
function columnsOf(side: LinkBinding['side']): { self: string; other: string } {
  return side === 'source' ? { self: 'source_id', other: 'target_id' } : { self: 'target_id', other: 'source_id' };
}

/**
 * A `links` column for `records r`: every link of the type's relationships, from both ends, in the
 * order they were made. The records repository reads it with the rows themselves, so that no page
 * needs a query per record.
 */
export function linksColumnSql(type: ObjectTypeDefinition, params: SqlParameters): string {
  // A side without relationships of the type is left out, rather than probed for nothing on every read.
  const branches = (['source', 'target'] as const).flatMap((side) => {
    const links = type.relationships.filter((r) => r.binding.side === side).map((r) => r.binding.link);
    if (links.length === 0) return [];
    const { self, other } = columnsOf(side);
    return [
      `SELECT '${side}' AS side, link, ${other} AS other, created_at FROM record_links
        WHERE ${self} = r.id AND link = ANY(${params.add(links)})`,
    ];
  });
  if (branches.length === 0) return `'[]'::json AS links`;
  return `(SELECT coalesce(json_agg(json_build_array(l.side, l.link, l.other) ORDER BY l.created_at, l.other), '[]'::json)
      FROM (${branches.join(' UNION ALL ')}) l) AS links`;
}

/**
 * SQL that makes links of records (`[record, its end, link, other]`), bound as columns: the body of
 * a statement of its own, or of a WITH of the records repository that makes the records too.
 */
function insertLinksSql(workspace: string, links: RecordLink[], params: SqlParameters): string {
  const [records, sides, names, others] = linkColumns(links).map((column) => params.add(column));
  return `INSERT INTO record_links (workspace_id, source_id, link, target_id)
    SELECT ${workspace}, CASE l.side WHEN 'source' THEN l.record ELSE l.other END, l.link,
           CASE l.side WHEN 'source' THEN l.other ELSE l.record END
      FROM unnest(${records}::text[], ${sides}::text[], ${names}::text[], ${others}::text[]) AS l(record, side, link, other)
    ON CONFLICT DO NOTHING`;
}

/** A WITH entry `linked` that makes the links of records being made, and returns each made link. */
export function insertManyLinksSql(workspace: string, links: RecordLink[], params: SqlParameters): string {
  return `linked AS (${insertLinksSql(workspace, links, params)} RETURNING source_id, link, target_id, created_at)`;
}

/**
 * The `links` column of a record made by the statement whose WITH made its links
 * (insertManyLinksSql): its links as a read returns them, in the order they were made.
 */
export function madeLinksColumnSql(recordId: string): string {
  return `(SELECT coalesce(json_agg(json_build_array(e.side, e.link, e.other) ORDER BY e.created_at, e.other), '[]'::json)
     FROM (SELECT 'source' AS side, link, target_id AS other, created_at FROM linked WHERE source_id = ${recordId}
           UNION ALL
           SELECT 'target', link, source_id, created_at FROM linked WHERE target_id = ${recordId}) e) AS links`;
}

/**
 * SQL of how many records of the workspace are linked through `binding`, whose link name is bound
 * as `linkName`, to `otherId` (a bound parameter), read from the counts that triggers keep per
 * workspace, link and target (see the record_link_counts migration): undefined when the binding is
 * read from its target, whose other end (the source) is not counted.
 */
export function linkedCountSql(
  { side }: LinkBinding,
  workspace: string,
  linkName: string,
  otherId: string,
): string | undefined {
  if (side !== 'source') return undefined;
  return `(SELECT coalesce(sum(count), 0)::int FROM record_link_counts
      WHERE workspace_id = ${workspace} AND link = ${linkName} AND target_id = ${otherId})`;
}

/**
 * The link side of a page filtered by one relationship read from its source (see
 * RecordsRepository): `sources`, the ids of the records linked through the link bound as
 * `linkName` to `otherId` (bound); `probe(recordId)`, whether one record is, as a scalar subquery
 * that the planner runs per record (an EXISTS it would turn into a join over every link).
 */
export function linkedSourcesSql(
  linkName: string,
  otherId: string,
): { sources: string; probe: (recordId: string) => string } {
  return {
    sources: `SELECT source_id FROM record_links WHERE target_id = ${otherId} AND link = ${linkName}`,
    probe: (recordId) =>
      `(SELECT true FROM record_links l WHERE l.source_id = ${recordId} AND l.link = ${linkName} AND l.target_id = ${otherId})`,
  };
}

/**
 * A condition: the record `recordId` (SQL) is linked through `binding`, whose link name is bound as
 * `linkName`, to `otherId` (a bound parameter).
 */
export function linkedToSql({ side }: LinkBinding, recordId: string, linkName: string, otherId: string): string {
  const { self, other } = columnsOf(side);
  return `EXISTS (SELECT 1 FROM record_links l WHERE l.${self} = ${recordId} AND l.link = ${linkName} AND l.${other} = ${otherId})`;
}

/**
 * SQL of `record_links`: one row per link between two records (or a record and a member or file),
 * named after the relationship that made it and read from both ends. A `binding` says which link
 * and from which end the caller reads it (see LinkBinding).
 */
@Injectable()
export class RecordLinksRepository {
  constructor(private readonly transactions: Transactions) {}

  /** The ids that any of `recordIds` is linked to through `binding`, once each. */
  async linkedToAny(recordIds: string[], { link, side }: LinkBinding): Promise<string[]> {
    if (recordIds.length === 0) return [];
    const { self, other } = columnsOf(side);
    const rows = await this.transactions.query<{ id: string }>(
      `SELECT DISTINCT ${other} AS id FROM record_links WHERE link = $1 AND ${self} = ANY($2)`,
      [link, recordIds],
    );
    return rows.map((row) => row.id);
  }

  /** Many records' links at once: each `[recordId, its end, link name, the other record's id]`. */
  async linkMany(workspaceId: string, links: RecordLink[]): Promise<void> {
    if (links.length === 0) return;
    const params = new SqlParameterList();
    await this.transactions.query(insertLinksSql(params.add(workspaceId), links, params), params.values);
  }

  /** Removes many records' links at once (see linkMany). */
  async unlinkMany(links: RecordLink[]): Promise<void> {
    if (links.length === 0) return;
    await this.transactions.query(
      `DELETE FROM record_links r
        USING unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS l(record, side, link, other)
        WHERE r.link = l.link
          AND r.source_id = CASE l.side WHEN 'source' THEN l.record ELSE l.other END
          AND r.target_id = CASE l.side WHEN 'source' THEN l.other ELSE l.record END`,
      linkColumns(links),
    );
  }

  /**
   * Removes every `link` from the sources `sourceIds`, which are about to be linked elsewhere;
   * answers the targets they were linked to, once each.
   */
  async unlinkSources(sourceIds: string[], link: string): Promise<string[]> {
    const rows = await this.transactions.query<{ target_id: string }>(
      `DELETE FROM record_links WHERE source_id = ANY($1) AND link = $2 RETURNING target_id`,
      [sourceIds, link],
    );
    return [...new Set(rows.map((row) => row.target_id))];
  }
}

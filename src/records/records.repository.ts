import { Injectable } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import type { PageRequest } from '../common/pagination/pagination';
import { Transactions } from '../database/transactions';
import { hostKeySql } from './field-types/url-hosts';
import type { ObjectTypeDefinition } from './object-type';
import { SqlParameterList } from './record-filters';
import { LinkEnd, linksColumnSql } from './record-links.repository';
import { pageStatement, RECORD_COLUMNS, RecordRestriction } from './record-page';

/** A `records` row with its links, as every read returns it. */
export interface RecordRow {
  id: string;
  fields: Record<string, unknown>;
  external_id: string | null;
  /** Rows read through json_agg carry their timestamps as text. */
  created_at: Date | string;
  updated_at: Date | string | null;
  /** Every link of the type's relationships, in link order. */
  links: LinkEnd[];
}

/** A taken `externalId` (unique index `records_external_id_key`): 409 naming `externalId` (docs/api.md §7). */
function externalIdConflict(error: unknown): never {
  const constraint = error instanceof QueryFailedError ? (error.driverError as { constraint?: string }).constraint : undefined;
  if (constraint === 'records_external_id_key') {
    throw new ApiError(409, 'duplicate_value', 'Another record of this type already has this externalId', 'externalId');
  }
  throw error;
}

/**
 * SQL of `records` (one row per record of any type, fields in a jsonb document), of the counters in
 * `record_counts` and of reads of `record_values`, the value index a trigger keeps. Reads compose
 * the links column of RecordLinksRepository, so that a record or a page is one round trip.
 */
@Injectable()
export class RecordsRepository {
  constructor(private readonly transactions: Transactions) {}

  async find(workspaceId: string, type: ObjectTypeDefinition, id: string): Promise<RecordRow | undefined> {
    return (await this.findMany(workspaceId, type, [id]))[0];
  }

  /** The records of `type` among `ids`, in no particular order; ids of other types or workspaces are left out. */
  async findMany(workspaceId: string, type: ObjectTypeDefinition, ids: string[]): Promise<RecordRow[]> {
    const params = new SqlParameterList();
    const match = ids.length === 1 ? `r.id = ${params.add(ids[0])}` : `r.id = ANY(${params.add(ids)})`;
    // Prepared: its text depends only on the type and on one id or many, so it stays one of few.
    return this.transactions.query<RecordRow>(
      `SELECT ${RECORD_COLUMNS}, ${linksColumnSql(type, params)} FROM records r
        WHERE ${match} AND r.workspace_id = ${params.add(workspaceId)} AND r.object_type = ${params.add(type.slug)}`,
      params.values,
      { prepare: 'record-find' },
    );
  }

  /**
   * A page of `type`, newest first, filtered (docs/api.md §8) and optionally restricted, with the
   * count of every match, in one statement (see pageStatement).
   */
  async page(
    workspaceId: string,
    type: ObjectTypeDefinition,
    page: PageRequest,
    restrict?: RecordRestriction,
  ): Promise<{ rows: RecordRow[]; total: number }> {
    const { text, values } = pageStatement(workspaceId, type, page, restrict);
    const [result] = (await this.transactions.manager.query(text, values)) as [{ total: number; rows: RecordRow[] }];
    return result;
  }

  /** The stored fields of a record, its row locked until the transaction ends; undefined when not found. */
  async lockFields(workspaceId: string, slug: string, id: string): Promise<Record<string, unknown> | undefined> {
    const [row] = (await this.transactions.manager.query(
      `SELECT fields FROM records WHERE id = $1 AND workspace_id = $2 AND object_type = $3 FOR UPDATE`,
      [id, workspaceId, slug],
    )) as { fields: Record<string, unknown> }[];
    return row?.fields;
  }

  /** Locks records (in id order, so that concurrent lockers take turns without deadlock). */
  async lock(ids: string[]): Promise<void> {
    await this.transactions.manager.query(`SELECT 1 FROM records WHERE id = ANY($1) ORDER BY id FOR UPDATE`, [ids]);
  }

  /** A new record, counted in its type's counter (which lists read for an unfiltered count). */
  async insert(record: {
    id: string;
    workspaceId: string;
    slug: string;
    fields: string;
    externalId: string | null;
    createdAt: Date;
  }): Promise<void> {
    const manager = this.transactions.manager;
    await manager
      .query(
        `INSERT INTO records (id, workspace_id, object_type, fields, external_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
        [record.id, record.workspaceId, record.slug, record.fields, record.externalId, record.createdAt],
      )
      .catch(externalIdConflict);
    await manager.query(
      `INSERT INTO record_counts (workspace_id, object_type, count) VALUES ($1, $2, 1)
       ON CONFLICT (workspace_id, object_type) DO UPDATE SET count = record_counts.count + 1`,
      [record.workspaceId, record.slug],
    );
  }

  /** Replaces the fields document; `externalId` undefined keeps it, null clears it. */
  async update(id: string, fields: string, externalId: string | null | undefined, updatedAt: Date): Promise<void> {
    await this.transactions.manager
      .query(
        `UPDATE records SET fields = $2, external_id = CASE WHEN $3 THEN $4 ELSE external_id END, updated_at = $5 WHERE id = $1`,
        [id, fields, externalId !== undefined, externalId ?? null, updatedAt],
      )
      .catch(externalIdConflict);
  }

  /**
   * Makes creations of these types in the workspace take turns until the transaction ends, as
   * `insert` does for one type: callers that read before they create (e.g. "does a contact with
   * this email exist?") then see each other's records. Always in one order, so they never deadlock.
   */
  async lockCreation(workspaceId: string, slugs: string[]): Promise<void> {
    const manager = this.transactions.manager;
    const sorted = [...new Set(slugs)].sort();
    await manager.query(
      `INSERT INTO record_counts (workspace_id, object_type, count) SELECT $1, unnest($2::text[]), 0 ON CONFLICT DO NOTHING`,
      [workspaceId, sorted],
    );
    await manager.query(
      `SELECT 1 FROM record_counts WHERE workspace_id = $1 AND object_type = ANY($2) ORDER BY object_type FOR UPDATE`,
      [workspaceId, sorted],
    );
  }

  /**
   * Whether a record of the type other than `exceptId` holds `value` in `fieldKey`: `[element]` is
   * held by any record whose array holds the element; an object (ADDRESS, FULL_NAME) only by equality. First takes a lock on the value until
   * the transaction ends, so that two writes of one value take turns and the second sees the first.
   */
  async isValueTaken(workspaceId: string, slug: string, fieldKey: string, value: unknown, exceptId: string): Promise<boolean> {
    const manager = this.transactions.manager;
    const probe = JSON.stringify({ [fieldKey]: value });
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`unique:${workspaceId}:${slug}:${probe}`]);
    // Containment alone would take {firstName} for a duplicate of {firstName, lastName}.
    const taken = (await manager.query(
      `SELECT 1 FROM records WHERE workspace_id = $1 AND object_type = $2 AND fields @> $3::jsonb AND id <> $4
          AND (jsonb_typeof(fields -> $5) <> 'object' OR fields -> $5 = $6::jsonb) LIMIT 1`,
      [workspaceId, slug, probe, exceptId, fieldKey, JSON.stringify(value)],
    )) as unknown[];
    return taken.length > 0;
  }

  /** Which of `ids` are records of the type in the workspace. */
  async existingIds(workspaceId: string, slug: string, ids: string[]): Promise<string[]> {
    const rows = (await this.transactions.manager.query(
      `SELECT id FROM records WHERE workspace_id = $1 AND object_type = $2 AND id = ANY($3)`,
      [workspaceId, slug, ids],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  /** Records of the type whose multi-valued text field `fieldKey` holds any of `values`, with that field's values. */
  async findHoldingAny(
    workspaceId: string,
    slug: string,
    fieldKey: string,
    values: string[],
  ): Promise<{ id: string; values: string[] }[]> {
    return (await this.transactions.manager.query(
      `SELECT id, fields -> $3 AS values FROM records WHERE workspace_id = $1 AND object_type = $2 AND fields -> $3 ?| $4::text[]`,
      [workspaceId, slug, fieldKey, values],
    )) as { id: string; values: string[] }[];
  }

  /**
   * For each host key (see hostKey), the oldest record of the type with a URL on that host in its
   * multi-valued URL field `fieldKey`.
   */
  async oldestByUrlHost(workspaceId: string, slug: string, fieldKey: string, hosts: string[]): Promise<Map<string, string>> {
    if (hosts.length === 0) return new Map();
    const rows = (await this.transactions.manager.query(
      `SELECT DISTINCT ON (site.host) site.host, r.id
         FROM records r
        CROSS JOIN LATERAL (
               SELECT ${hostKeySql('url.text')} AS host
                 FROM jsonb_array_elements_text(
                        CASE jsonb_typeof(r.fields -> $3) WHEN 'array' THEN r.fields -> $3 ELSE '[]' END
                      ) url(text)) site
        WHERE r.workspace_id = $1 AND r.object_type = $2 AND site.host = ANY($4)
        ORDER BY site.host, r.created_at, r.id`,
      [workspaceId, slug, fieldKey, [...new Set(hosts)]],
    )) as { host: string; id: string }[];
    return new Map(rows.map((row) => [row.host, row.id]));
  }
}

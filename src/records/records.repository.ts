import { Injectable } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { endPage, type PageRead, type PageRequest } from '../common/pagination/pagination';
import { pageStatement, RECORD_COLUMNS, type RecordRestriction } from './record-pages';
import { Transactions } from '../database/transactions';
import { EventsRepository, NewEvent } from './events.repository';
import { hostKeySql } from './field-types/url-hosts';
import type { ObjectTypeDefinition } from './object-type';
import { SqlParameterList } from './field-types/field-type';
import {
  insertManyLinksSql,
  linksColumnSql,
  madeLinksColumnSql,
  type LinkEnd,
  RecordLink,
} from './record-links.repository';

/** A `records` row with its links, as every read returns it. */
export interface RecordRow {
  id: string;
  fields: Record<string, unknown>;
  external_id: string | null;
  /** Rows read through json_agg carry their timestamps as text. */
  created_at: Date | string;
  updated_at: Date | string | null;
  /** How many changes the record has had, from 1 (its ETag). */
  version: number;
  /** Every link of the type's relationships, in link order. */
  links: LinkEnd[];
}

/**
 * The oldest record of a type ($2) per URL host among the entries of a field ($3), for hosts $4.
 * Through the value index (one row per entry, its first 512 characters, which hold any host):
 * record_values_website_host_idx finds `$website` entries by host, so the expression must stay the
 * index's (meetings e2e checks the plan); each record is then read by its id, fenced so that no
 * plan scans the workspace's records to join them.
 */
export const OLDEST_BY_URL_HOST = `
  SELECT DISTINCT ON (v.host) v.host, r.id
    FROM (SELECT ${hostKeySql('text_value')} AS host, record_id FROM record_values
           WHERE workspace_id = $1 AND object_type = $2 AND field_key = $3 AND ${hostKeySql('text_value')} = ANY($4)) v
   CROSS JOIN LATERAL (SELECT id, created_at FROM records WHERE id = v.record_id OFFSET 0) r
   ORDER BY v.host, r.created_at, r.id`;

/** The bound the records_fields_size constraint puts on a record's fields (octet_length(fields::text)). */
const MAX_RECORD_FIELDS_MIB = 2;
export const MAX_RECORD_FIELDS_BYTES = MAX_RECORD_FIELDS_MIB * 2 ** 20;

/** The refusal of fields over MAX_RECORD_FIELDS_BYTES (docs/api.md §7). */
export function fieldsTooLarge(): ApiError {
  return ApiError.invalidValue(
    'fields',
    `A record's fields may hold at most ${MAX_RECORD_FIELDS_MIB} MiB as JSON text`,
  );
}

/** A type's counter gets a new slot, numbered at random below this, when every slot it has is in use. */
const SLOT_RANGE = 32768;

/** SQL of the advisory lock key under which creates of a type in a workspace take turns with lockCreation. */
function creationLockKeySql(workspace: string, objectType: string): string {
  return `hashtextextended('creation:' || ${workspace} || ':' || ${objectType}, 0)`;
}

/**
 * The key of the lock under which writes of one value of a `unique` field take turns (see
 * RecordWriteChecks.lockKeysOf): `probe` is a scalar or object value, or `[element]` of a
 * multi-valued field.
 */
export function uniqueValueLockKey(workspaceId: string, slug: string, fieldKey: string, probe: unknown): string {
  return `unique:${workspaceId}:${slug}:${JSON.stringify({ [fieldKey]: probe })}`;
}

/** The key of the lock under which upserts of one externalId of a type take turns. */
export function externalIdLockKey(workspaceId: string, slug: string, externalId: string): string {
  return `external-id:${workspaceId}:${slug}:${externalId}`;
}

/** A new record, as `RecordsRepository.insertMany` takes it. */
export interface NewRecord {
  id: string;
  fields: Record<string, unknown>;
  externalId: string | null;
  createdAt: Date;
}

/**
 * The write refusals the records table makes itself: a taken `externalId` (unique index
 * `records_external_id_key`), 409 naming `externalId`; fields over the size bound
 * (`records_fields_size`), 422 naming `fields` (docs/api.md §7).
 */
function recordWriteRefusal(error: unknown): never {
  const constraint =
    error instanceof QueryFailedError ? (error.driverError as { constraint?: string }).constraint : undefined;
  if (constraint === 'records_external_id_key') {
    throw new ApiError(409, 'duplicate_value', 'Another record of this type already has this externalId', 'externalId');
  }
  if (constraint === 'records_fields_size') {
    throw fieldsTooLarge();
  }
  throw error;
}

/** What `RecordsRepository.patch` did to a record it found. */
export interface PatchResult {
  /** The record as a read returns it after. */
  row: RecordRow;
  previousFields: Record<string, unknown>;
  changed: boolean;
  /** Whether its version was one If-Match named: when not, nothing was written. */
  matched: boolean;
}

/**
 * The SET items of a write that changes records: their `updatedAt` moves and their version counts
 * the change, but for those in `except`, made by this transaction, whose `updatedAt` stays unset
 * and whose version stays 1 until it commits (as its create answered them).
 */
function changedSql(params: SqlParameterList, change: { updatedAt: Date; except: string[] }): string {
  const except = `r.id = ANY(${params.add(change.except)}::text[])`;
  return `updated_at = CASE WHEN ${except} THEN r.updated_at ELSE ${params.add(change.updatedAt)}::timestamptz END,
          version = CASE WHEN ${except} THEN r.version ELSE r.version + 1 END`;
}

/**
 * SQL of `records` (one row per record of any type, fields in a jsonb document), of the counters in
 * `record_counts` and of reads of `record_values`, the value index a trigger keeps. Reads compose
 * the links column of RecordLinksRepository, so that a record or a page is one round trip.
 */
@Injectable()
export class RecordsRepository {
  constructor(
    private readonly transactions: Transactions,
    private readonly events: EventsRepository,
  ) {}

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
   * count of every match, in one statement (see pageStatement); the page is ended (endPage).
   */
  async page(
    workspaceId: string,
    type: ObjectTypeDefinition,
    page: PageRequest,
    restrict?: RecordRestriction,
  ): Promise<PageRead<RecordRow>> {
    const { text, values, prepare } = pageStatement(workspaceId, type, page, restrict);
    const [read] = await this.transactions.query<{ total: number; rows: RecordRow[] }>(text, values, {
      prepare: prepare ? 'record-page' : undefined,
    });
    return endPage(page, read, (row) => ({ at: row.created_at as string, id: row.id }));
  }

  /**
   * Moves the `updatedAt` of records of `type` whose relationships changed from their other end,
   * but of those in `except` (made by this transaction, whose `updatedAt` stays unset), locking
   * them in id order (as `lock`): the records as a read returns them.
   */
  async touch(
    workspaceId: string,
    type: ObjectTypeDefinition,
    ids: string[],
    change: { updatedAt: Date; except: string[] },
  ): Promise<RecordRow[]> {
    const params = new SqlParameterList();
    const workspace = params.add(workspaceId);
    return this.transactions.query<RecordRow>(
      `UPDATE records r SET ${changedSql(params, change)}
        WHERE r.id IN (SELECT id FROM records WHERE id = ANY(${params.add(ids)}::text[]) AND workspace_id = ${workspace} ORDER BY id FOR UPDATE)
        RETURNING ${RECORD_COLUMNS}, ${linksColumnSql(type, params)}`,
      params.values,
    );
  }

  /** Locks records (in id order, so that concurrent lockers take turns without deadlock). */
  async lock(ids: string[]): Promise<void> {
    await this.transactions.query(`SELECT 1 FROM records WHERE id = ANY($1) ORDER BY id FOR UPDATE`, [ids]);
  }

  /**
   * New records of one type and workspace with their links, counted in the type's counter, in one
   * statement: the records as a read returns them. The counter is the sum of slots: a create bumps
   * a slot no other uncommitted create holds, or adds one, so concurrent creates never wait for
   * each other's commits. A create holds its type's creation lock shared, so that it waits for a
   * `lockCreation` of the type.
   */
  async insertMany(
    workspaceId: string,
    type: ObjectTypeDefinition,
    records: NewRecord[],
    links: RecordLink[],
  ): Promise<RecordRow[]> {
    if (records.length === 0) return [];
    const params = new SqlParameterList();
    return this.transactions
      .query<RecordRow>(
        `${this.insertSql(workspaceId, type.slug, records, links, [], params)}
         SELECT ${RECORD_COLUMNS}, ${madeLinksColumnSql('r.id')} FROM made r`,
        params.values,
        { prepare: 'record-insert-many' },
      )
      .catch(recordWriteRefusal);
  }

  /**
   * `insertMany`'s records and their change `events`, appended by the same statement (a create
   * outside any transaction). It answers nothing: the events' data already holds the records as
   * they are made (reading the rows back and building their envelopes again was ~4 % of a create's
   * node CPU).
   */
  async insertRecorded(
    workspaceId: string,
    slug: string,
    records: NewRecord[],
    links: RecordLink[],
    events: NewEvent[],
  ): Promise<void> {
    const params = new SqlParameterList();
    await this.transactions
      .query(`${this.insertSql(workspaceId, slug, records, links, events, params)} SELECT 1`, params.values, {
        prepare: 'record-insert-recorded',
      })
      .catch(recordWriteRefusal);
    this.events.appended(workspaceId);
  }

  private insertSql(
    workspaceId: string,
    slug: string,
    records: NewRecord[],
    links: RecordLink[],
    events: NewEvent[],
    params: SqlParameterList,
  ): string {
    const workspace = params.add(workspaceId);
    const objectType = params.add(slug);
    const column = <T>(value: (record: NewRecord) => T) => params.add(records.map(value));
    return `WITH creation AS (SELECT pg_advisory_xact_lock_shared(${creationLockKeySql(workspace, objectType)})),
         made AS (
           INSERT INTO records (id, workspace_id, object_type, fields, external_id, created_at)
           SELECT n.id, ${workspace}, ${objectType}, n.fields::jsonb, n.external_id, n.created_at
             FROM creation,
                  unnest(${column((r) => r.id)}::text[], ${column((r) => JSON.stringify(r.fields))}::text[],
                         ${column((r) => r.externalId)}::text[], ${column((r) => r.createdAt)}::timestamptz[])
                  AS n(id, fields, external_id, created_at)
           RETURNING id, fields, external_id, created_at, updated_at, version),
         free_slot AS (
           SELECT slot FROM record_counts WHERE workspace_id = ${workspace} AND object_type = ${objectType}
            ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED),
         counted AS (
           INSERT INTO record_counts (workspace_id, object_type, slot, count)
           SELECT ${workspace}, ${objectType}, coalesce((SELECT slot FROM free_slot), floor(random() * ${SLOT_RANGE})::int), count(*) FROM made
           ON CONFLICT (workspace_id, object_type, slot) DO UPDATE SET count = record_counts.count + excluded.count),
         ${insertManyLinksSql(workspace, links, params)}${
           events.length > 0
             ? `,
         ${this.events.appendSql(workspace, events, params)}`
             : ''
         }`;
  }

  /**
   * The records of `type` among `ids`, locked in id order until the transaction ends (as `lock`),
   * with their links, as they are once locked. A statement reads as of its start: when it waited
   * for a lock, what it joins to the locked rows (their links, even their own columns read again)
   * is from before the holder's commit, and only the locked rows themselves are new. Their version
   * says which: those it moved are read again, by a statement that starts after the lock.
   */
  async lockMany(workspaceId: string, type: ObjectTypeDefinition, ids: string[]): Promise<RecordRow[]> {
    if (ids.length === 0) return [];
    const params = new SqlParameterList();
    const workspace = params.add(workspaceId);
    const objectType = params.add(type.slug);
    const rows = await this.transactions.query<RecordRow & { locked_version: number }>(
      `SELECT ${RECORD_COLUMNS}, ${linksColumnSql(type, params)}, locked.version AS locked_version
         FROM (SELECT id, version FROM records WHERE id = ANY(${params.add(ids)}::text[]) AND workspace_id = ${workspace} AND object_type = ${objectType}
                ORDER BY id FOR UPDATE) locked
         JOIN records r ON r.id = locked.id`,
      params.values,
      { prepare: 'record-lock-many' },
    );
    const moved = rows.filter((row) => row.version !== row.locked_version).map((row) => row.id);
    if (moved.length === 0) return rows.map(({ locked_version: _locked, ...row }) => row);
    const reread = new Map((await this.findMany(workspaceId, type, moved)).map((row) => [row.id, row]));
    return rows.map(({ locked_version: _locked, ...row }) => reread.get(row.id) ?? row);
  }

  /**
   * Replaces the fields documents and externalIds of records (already locked) in one statement;
   * their `updatedAt` moves, but for those in `except` (made by this transaction, whose `updatedAt`
   * stays unset): the records as a read returns them.
   */
  async updateMany(
    type: ObjectTypeDefinition,
    rows: { id: string; fields: Record<string, unknown>; externalId: string | null }[],
    change: { updatedAt: Date; except: string[] },
  ): Promise<RecordRow[]> {
    if (rows.length === 0) return [];
    const params = new SqlParameterList();
    return this.transactions
      .query<RecordRow>(
        `UPDATE records r SET fields = n.fields::jsonb, external_id = n.external_id, ${changedSql(params, change)}
           FROM unnest(${params.add(rows.map((row) => row.id))}::text[], ${params.add(rows.map((row) => JSON.stringify(row.fields)))}::text[],
                       ${params.add(rows.map((row) => row.externalId))}::text[]) AS n(id, fields, external_id)
          WHERE r.id = n.id
         RETURNING ${RECORD_COLUMNS}, ${linksColumnSql(type, params)}`,
        params.values,
        { prepare: 'record-update-many' },
      )
      .catch(recordWriteRefusal);
  }

  /** Takes the advisory locks `keys` until the transaction ends, in one order, so that two lockers never deadlock. */
  async lockValues(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.transactions.query(`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k`, [
      [...new Set(keys)].sort(),
    ]);
  }

  /** The records of the type that hold any of `externalIds`: by externalId, the record's id. */
  async holdersOfExternalIds(workspaceId: string, slug: string, externalIds: string[]): Promise<Map<string, string>> {
    if (externalIds.length === 0) return new Map();
    // One lookup of the unique index per externalId, kept apart by OFFSET 0: `= ANY(many)` lets
    // statistics that an import outruns choose the page index and filter every record of the type.
    const rows = await this.transactions.query<{ id: string; external_id: string }>(
      `SELECT r.id, r.external_id FROM unnest($3::text[]) AS e(external_id)
         CROSS JOIN LATERAL (SELECT id, external_id FROM records
                              WHERE workspace_id = $1 AND object_type = $2 AND external_id = e.external_id OFFSET 0) r`,
      [workspaceId, slug, externalIds],
    );
    return new Map(rows.map((row) => [row.external_id, row.id]));
  }

  /**
   * The records of the type whose `fieldKey` holds any of `probes` (each a scalar or object value,
   * or `[element]` of a multi-valued field: containment, see probesOf), with that field's value:
   * the caller compares objects by equality.
   */
  async holdersOfValues(
    workspaceId: string,
    slug: string,
    fieldKey: string,
    probes: unknown[],
  ): Promise<{ id: string; value: unknown }[]> {
    if (probes.length === 0) return [];
    // One lookup of the fields index per probe, the workspace and type checked after: the planner
    // otherwise judges by statistics that an import outruns, takes the workspace's few records of
    // the type for many, and filters every one of them (O(records) a call). OFFSET 0 keeps the
    // lookup from being merged with the join or given the outer conditions.
    return this.transactions.query<{ id: string; value: unknown }>(
      `SELECT DISTINCT ON (r.id) r.id, r.fields -> $3 AS value
         FROM unnest($4::jsonb[]) AS p(probe)
         CROSS JOIN LATERAL (SELECT id, workspace_id, object_type, fields FROM records WHERE fields @> p.probe OFFSET 0) r
        WHERE r.workspace_id = $1 AND r.object_type = $2`,
      [workspaceId, slug, fieldKey, probes.map((probe) => JSON.stringify({ [fieldKey]: probe }))],
    );
  }

  /**
   * Sets the fields `set` holds and clears those of `cleared` in one statement, without reading the
   * record first, unless that changes nothing (neither its fields nor its externalId) or its
   * version is not one `ifMatch` names; undefined when there is no such record.
   */
  async patch(
    workspaceId: string,
    type: ObjectTypeDefinition,
    id: string,
    change: {
      set: string;
      cleared: string[];
      externalId: string | null | undefined;
      updatedAt: Date;
      /** Write only a record at one of these versions (If-Match); any, when undefined. */
      ifMatch?: number[];
    },
  ): Promise<PatchResult | undefined> {
    const params = new SqlParameterList();
    const recordId = params.add(id);
    const updatedAt = params.add(change.updatedAt);
    // The stored row's version is among those If-Match names (any, without one).
    const versions = params.add(change.ifMatch ?? null);
    const matchedSql = `(${versions}::int[] IS NULL OR s.version = ANY(${versions}::int[]))`;
    const [result] = await this.transactions
      .query<
        RecordRow & { previous_fields: Record<string, unknown>; changed: boolean; matched: boolean; waited: boolean }
      >(
        `WITH stored AS (
           SELECT r.fields AS previous_fields, r.external_id AS previous_external_id, r.version,
                  (r.fields || ${params.add(change.set)}::jsonb) - ${params.add(change.cleared)}::text[] AS fields,
                  CASE WHEN ${params.add(change.externalId !== undefined)} THEN ${params.add(change.externalId ?? null)}::text
                       ELSE r.external_id END AS external_id
             FROM records r
            WHERE r.id = ${recordId} AND r.workspace_id = ${params.add(workspaceId)} AND r.object_type = ${params.add(type.slug)}
              FOR UPDATE),
         written AS (
           UPDATE records r SET fields = s.fields, external_id = s.external_id, updated_at = ${updatedAt}, version = r.version + 1
             FROM stored s
            WHERE r.id = ${recordId} AND (s.fields <> s.previous_fields OR s.external_id IS DISTINCT FROM s.previous_external_id)
              AND ${matchedSql}
           RETURNING r.id)
         SELECT r.id, s.fields, s.external_id, r.created_at,
                CASE WHEN w.id IS NULL THEN r.updated_at ELSE ${updatedAt}::timestamptz END AS updated_at,
                s.version + (w.id IS NOT NULL)::int AS version,
                ${linksColumnSql(type, params)}, s.previous_fields, w.id IS NOT NULL AS changed, ${matchedSql} AS matched,
                r.version <> s.version AS waited
           FROM stored s CROSS JOIN records r LEFT JOIN written w ON true
          WHERE r.id = ${recordId}`,
        params.values,
        { prepare: 'record-patch' },
      )
      .catch(recordWriteRefusal);
    if (!result) return undefined;
    const { previous_fields: previousFields, changed, matched, waited, ...row } = result;
    // `stored` is the locked row; `r`, read as of the statement's start, is older when the lock was
    // waited for (see lockMany): then its links and updatedAt are read again.
    return { row: waited ? (await this.find(workspaceId, type, id))! : row, previousFields, changed, matched };
  }

  /**
   * Makes creations of these types in the workspace wait until the transaction ends (each create
   * holds its type's creation lock shared, see insertMany): callers that read before they create
   * (e.g. "does a contact with this email exist?") then see every record made before, and none is
   * made in between. Always in one order, so they never deadlock.
   */
  async lockCreation(workspaceId: string, slugs: string[]): Promise<void> {
    const sorted = [...new Set(slugs)].sort();
    await this.transactions.query(
      `SELECT pg_advisory_xact_lock(${creationLockKeySql('$1', 'slug')}) FROM unnest($2::text[]) AS s(slug)`,
      [workspaceId, sorted],
    );
  }

  /** Which of `ids` are records of the type in the workspace. */
  async existingIds(workspaceId: string, slug: string, ids: string[]): Promise<string[]> {
    const rows = await this.transactions.query<{ id: string }>(
      `SELECT id FROM records WHERE workspace_id = $1 AND object_type = $2 AND id = ANY($3)`,
      [workspaceId, slug, ids],
    );
    return rows.map((row) => row.id);
  }

  /** Records of the type whose multi-valued text field `fieldKey` holds any of `values`, with that field's values. */
  async findHoldingAny(
    workspaceId: string,
    slug: string,
    fieldKey: string,
    values: string[],
  ): Promise<{ id: string; values: string[] }[]> {
    return this.transactions.query<{ id: string; values: string[] }>(
      `SELECT id, fields -> $3 AS values FROM records WHERE workspace_id = $1 AND object_type = $2 AND fields -> $3 ?| $4::text[]`,
      [workspaceId, slug, fieldKey, values],
    );
  }

  /**
   * For each host key (see hostKey), the oldest record of the type with a URL on that host in its
   * multi-valued URL field `fieldKey`.
   */
  async oldestByUrlHost(
    workspaceId: string,
    slug: string,
    fieldKey: string,
    hosts: string[],
  ): Promise<Map<string, string>> {
    if (hosts.length === 0) return new Map();
    const rows = await this.transactions.query<{ host: string; id: string }>(OLDEST_BY_URL_HOST, [
      workspaceId,
      slug,
      fieldKey,
      [...new Set(hosts)],
    ]);
    return new Map(rows.map((row) => [row.host, row.id]));
  }
}

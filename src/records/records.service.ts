import { Injectable } from '@nestjs/common';
import { EntityManager, QueryFailedError } from 'typeorm';
import type { AuthContext } from '../common/auth/auth-context';
import { ApiError } from '../common/errors/api-error';
import type { PageRequest, PageResult } from '../common/pagination/pagination';
import { AppConfig } from '../config/app-config';
import { Transactions } from '../database/transactions';
import { DefinitionsService } from './definitions.service';
import { EntityEnvelopeDto, StoredEntity, toEntityEnvelope } from './entity-envelope';
import type { ObjectTypeDefinition, RelationshipDefinition } from './object-type';
import { isRecordIdOf, newRecordId } from './record-ids';
import { filterSql, SqlParameterList } from './record-filters';
import { LinkChange, readRecordWrite } from './record-write';

interface RecordRow {
  id: string;
  fields: Record<string, unknown>;
  external_id: string | null;
  created_at: Date | string;
  updated_at: Date | string | null;
  /** [side, link, other record id], in link order. */
  links: ['source' | 'target', string, string][];
}

/** Link targets that are not records but rows of their own tables, by type slug (a Map: slugs are user-chosen). */
const OWN_TABLE_TARGETS = new Map([
  ['member', 'members'],
  ['file', 'files'],
]);

const RECORD_COLUMNS = 'r.id, r.fields, r.external_id, r.created_at, r.updated_at';

/**
 * A `links` column for `records r`: every link of the type's relationships, from both ends, in the
 * order they were made. Read with the rows themselves, so that no page needs a query per record.
 */
function linksColumn(type: ObjectTypeDefinition, params: SqlParameterList): string {
  const links = (side: 'source' | 'target') =>
    params.add(type.relationships.filter((r) => r.binding.side === side).map((r) => r.binding.link));
  return `(SELECT coalesce(json_agg(json_build_array(l.side, l.link, l.other) ORDER BY l.created_at, l.other), '[]'::json)
      FROM (SELECT 'source' AS side, link, target_id AS other, created_at FROM record_links
             WHERE source_id = r.id AND link = ANY(${links('source')})
            UNION ALL
            SELECT 'target', link, source_id, created_at FROM record_links
             WHERE target_id = r.id AND link = ANY(${links('target')})) l) AS links`;
}

/** The `fields` document to store: every set value (`null` clears, so it is left out), as JSON. */
function storedFields(values: ReadonlyMap<string, unknown>): string {
  return JSON.stringify(Object.fromEntries([...values].filter(([, value]) => value !== null)));
}

/** A taken `externalId` (unique index `records_external_id_key`): 409 naming `externalId` (decisions §2). */
function externalIdConflict(error: unknown): never {
  const constraint = error instanceof QueryFailedError ? (error.driverError as { constraint?: string }).constraint : undefined;
  if (constraint === 'records_external_id_key') {
    throw new ApiError(409, 'duplicate_value', 'Another record of this type already has this externalId', 'externalId');
  }
  throw error;
}

function columnsOf(side: 'source' | 'target'): { self: string; other: string } {
  return side === 'source' ? { self: 'source_id', other: 'target_id' } : { self: 'target_id', other: 'source_id' };
}

/**
 * Create, update, retrieve and list for every record type, driven by its definitions: one
 * `records` row per record and one `record_links` row per link, read from both ends.
 */
@Injectable()
export class RecordsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly definitions: DefinitionsService,
    private readonly config: AppConfig,
  ) {}

  definitionsOf(caller: AuthContext, slug: string): Promise<ObjectTypeDefinition> {
    return this.definitions.typeOf(caller, slug);
  }

  async create(caller: AuthContext, slug: string, body: unknown): Promise<EntityEnvelopeDto> {
    const type = await this.definitions.typeOf(caller, slug);
    const write = readRecordWrite(type, body, true);
    for (const definition of type.relationships) {
      if (definition.defaultsToCaller && !write.links.some((change) => change.definition === definition)) {
        write.links.push({ definition, set: [caller.memberId], add: [], remove: [] });
      }
    }
    return this.transactions.run(async (manager) => {
      await this.verifyTargets(manager, caller.workspaceId, write.links);
      const id = newRecordId(slug);
      await this.checkUnique(manager, caller.workspaceId, type, id, write.fields);
      await manager.query(
        `INSERT INTO records (id, workspace_id, object_type, fields, external_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, caller.workspaceId, slug, storedFields(write.fields), write.externalId ?? null, new Date()],
      ).catch(externalIdConflict);
      await manager.query(
        `INSERT INTO record_counts (workspace_id, object_type, count) VALUES ($1, $2, 1)
         ON CONFLICT (workspace_id, object_type) DO UPDATE SET count = record_counts.count + 1`,
        [caller.workspaceId, slug],
      );
      await this.applyLinks(manager, caller.workspaceId, id, write.links);
      return this.retrieve(manager, caller.workspaceId, type, id);
    });
  }

  async update(caller: AuthContext, slug: string, id: string, body: unknown): Promise<EntityEnvelopeDto> {
    const type = await this.definitions.typeOf(caller, slug);
    if (!isRecordIdOf(slug, id)) throw ApiError.notFound(type.label);
    const write = readRecordWrite(type, body, false);
    return this.transactions.run(async (manager) => {
      const [current] = (await manager.query(
        `SELECT fields FROM records WHERE id = $1 AND workspace_id = $2 AND object_type = $3 FOR UPDATE`,
        [id, caller.workspaceId, slug],
      )) as Pick<RecordRow, 'fields'>[];
      if (!current) throw ApiError.notFound(type.label);
      await this.verifyTargets(manager, caller.workspaceId, write.links);
      await this.checkUnique(manager, caller.workspaceId, type, id, write.fields);
      await manager.query(
        `UPDATE records SET fields = $2, external_id = CASE WHEN $3 THEN $4 ELSE external_id END, updated_at = $5
          WHERE id = $1`,
        [
          id,
          storedFields(new Map([...Object.entries(current.fields), ...write.fields])),
          write.externalId !== undefined,
          write.externalId ?? null,
          new Date(),
        ],
      ).catch(externalIdConflict);
      await this.applyLinks(manager, caller.workspaceId, id, write.links);
      return this.retrieve(manager, caller.workspaceId, type, id);
    });
  }

  async get(caller: AuthContext, slug: string, id: string): Promise<EntityEnvelopeDto> {
    const type = await this.definitions.typeOf(caller, slug);
    if (!isRecordIdOf(slug, id)) throw ApiError.notFound(type.label);
    return this.retrieve(this.transactions.manager, caller.workspaceId, type, id);
  }

  /**
   * Newest first; a bounded number of queries whatever the page size: count, page, links.
   * `restrict` may add a condition on `records r` given the filtered keys (meeting privacy).
   */
  async list(
    caller: AuthContext,
    slug: string,
    page: PageRequest,
    restrict?: (params: SqlParameterList, filteredKeys: string[]) => string | undefined,
  ): Promise<PageResult<EntityEnvelopeDto>> {
    const type = await this.definitions.typeOf(caller, slug);
    const params = new SqlParameterList();
    const workspace = params.add(caller.workspaceId);
    const objectType = params.add(slug);
    const filters = filterSql(type, page.filters, params);
    const restriction = restrict?.(params, Object.keys(page.filters).map((name) => name.replace(/\[.*$/, '')));
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
      pageRows = `SELECT ${RECORD_COLUMNS}, ${linksColumn(type, params)}
        FROM (${matches} ORDER BY created_at DESC, record_id DESC ${paging}) m JOIN records r ON r.id = m.record_id
       WHERE ${where}`;
    } else {
      count = filters.conditions.length
        ? `SELECT count(*)::int FROM records r WHERE ${where}`
        : `SELECT coalesce((SELECT count::int FROM record_counts WHERE workspace_id = ${workspace} AND object_type = ${objectType}), 0)`;
      pageRows = `SELECT ${RECORD_COLUMNS}, ${linksColumn(type, params)} FROM records r WHERE ${where}
        ORDER BY r.created_at DESC, r.id DESC ${paging}`;
    }
    return this.queryPage(type, count, pageRows, 'p.created_at DESC, p.id DESC', params);
  }

  /** The records of a list, most recently added first (decisions §3), in one statement. */
  async listMembers(caller: AuthContext, slug: string, listId: string, page: PageRequest): Promise<PageResult<EntityEnvelopeDto>> {
    const type = await this.definitions.typeOf(caller, slug);
    const params = new SqlParameterList();
    const list = params.add(listId);
    const pageRows = `SELECT ${RECORD_COLUMNS}, m.added_at, ${linksColumn(type, params)}
      FROM (SELECT record_id, added_at FROM list_members WHERE list_id = ${list}
             ORDER BY added_at DESC, record_id DESC LIMIT ${page.limit} OFFSET ${page.offset}) m
      JOIN records r ON r.id = m.record_id
     WHERE r.workspace_id = ${params.add(caller.workspaceId)} AND r.object_type = ${params.add(slug)}`;
    const count = `SELECT count(*)::int FROM list_members WHERE list_id = ${list}`;
    return this.queryPage(type, count, pageRows, 'p.added_at DESC, p.id DESC', params);
  }

  /** One statement for the count, the page and its links: a page costs one round trip. */
  private async queryPage(
    type: ObjectTypeDefinition,
    count: string,
    pageRows: string,
    order: string,
    params: SqlParameterList,
  ): Promise<PageResult<EntityEnvelopeDto>> {
    const [result] = (await this.transactions.manager.query(
      `SELECT (${count}) AS total, coalesce((SELECT json_agg(p ORDER BY ${order}) FROM (${pageRows}) p), '[]'::json) AS rows`,
      params.values,
    )) as [{ total: number; rows: RecordRow[] }];
    return { data: this.toEnvelopes(type, result.rows), totalCount: result.total };
  }

  /**
   * Sets a read-only relationship that the system maintains (meeting `$contact`, …): the caller's
   * write rules do not apply, the ids are trusted to be of the right type and workspace.
   */
  async setSystemLinks(workspaceId: string, recordId: string, definition: RelationshipDefinition, ids: string[]) {
    await this.applyLinks(this.transactions.manager, workspaceId, recordId, [{ definition, set: ids, add: [], remove: [] }]);
  }

  private async retrieve(
    manager: EntityManager,
    workspaceId: string,
    type: ObjectTypeDefinition,
    id: string,
  ): Promise<EntityEnvelopeDto> {
    const params = new SqlParameterList();
    const rows = (await manager.query(
      `SELECT ${RECORD_COLUMNS}, ${linksColumn(type, params)} FROM records r
        WHERE r.id = ${params.add(id)} AND r.workspace_id = ${params.add(workspaceId)} AND r.object_type = ${params.add(type.slug)}`,
      params.values,
    )) as RecordRow[];
    if (rows.length === 0) throw ApiError.notFound(type.label);
    return this.toEnvelopes(type, rows)[0];
  }

  private toEnvelopes(type: ObjectTypeDefinition, rows: RecordRow[]): EntityEnvelopeDto[] {
    const keyOf = new Map(type.relationships.map((r) => [`${r.binding.side}|${r.binding.link}`, r.key]));
    return rows.map((row) => {
      const links = new Map<string, string[]>();
      for (const [side, link, other] of row.links) {
        const key = keyOf.get(`${side}|${link}`)!;
        const ids = links.get(key);
        if (ids) ids.push(other);
        else links.set(key, [other]);
      }
      const entity: StoredEntity = {
        id: row.id,
        // Rows that come through json_agg carry timestamps as text.
        createdAt: new Date(row.created_at),
        updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
        externalId: row.external_id,
        fields: row.fields,
        links,
      };
      return toEntityEnvelope(type, entity, this.config.publicAppUrl);
    });
  }

  /**
   * `unique` fields (decisions §2: 409 `duplicate_value`). The advisory lock on the value makes two
   * concurrent writes of the same value take turns, so the second sees the first's row.
   */
  private async checkUnique(
    manager: EntityManager,
    workspaceId: string,
    type: ObjectTypeDefinition,
    id: string,
    fields: ReadonlyMap<string, unknown>,
  ): Promise<void> {
    for (const field of type.fields) {
      const value = fields.get(field.key);
      if (!field.typeConfiguration.unique || value === null || value === undefined) continue;
      // A multi-valued field is unique per element; an object (ADDRESS, FULL_NAME) by equality, as
      // containment alone would take {firstName} for a duplicate of {firstName, lastName}.
      // Sorted, so that two writes of the same values take the value locks in one order.
      const probes = (Array.isArray(value) ? value.map((element) => [element]) : [value]).sort((a, b) =>
        JSON.stringify(a).localeCompare(JSON.stringify(b)),
      );
      const taken: unknown[] = [];
      for (const probeValue of probes) {
        const probe = JSON.stringify({ [field.key]: probeValue });
        await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
          `unique:${workspaceId}:${type.slug}:${probe}`,
        ]);
        taken.push(
          ...((await manager.query(
            `SELECT 1 FROM records WHERE workspace_id = $1 AND object_type = $2 AND fields @> $3::jsonb AND id <> $4
                AND (jsonb_typeof(fields -> $5) <> 'object' OR fields -> $5 = $6::jsonb) LIMIT 1`,
            [workspaceId, type.slug, probe, id, field.key, JSON.stringify(probeValue)],
          )) as unknown[]),
        );
      }
      if (taken.length > 0) {
        const param = `fields.${field.key}`;
        throw new ApiError(409, 'duplicate_value', `Another ${type.slug} already has this ${field.key}`, param);
      }
    }
  }

  /** Every id written must exist in this workspace with the relationship's type (decisions §7). */
  private async verifyTargets(manager: EntityManager, workspaceId: string, changes: LinkChange[]): Promise<void> {
    for (const change of changes) {
      const ids = [...(change.set ?? []), ...change.add];
      if (ids.length === 0) continue;
      const { objectType, key } = change.definition;
      const param = `relationships.${key}`;
      const missing = (id: string) =>
        new ApiError(422, 'relationship_entity_missing', `No ${objectType} ${id} in this workspace`, param);
      const malformed = ids.find((id) => !isRecordIdOf(objectType, id));
      if (malformed !== undefined) throw missing(malformed);
      const ownTable = OWN_TABLE_TARGETS.get(objectType);
      const found = (
        (ownTable
          ? await manager.query(`SELECT id FROM ${ownTable} WHERE workspace_id = $1 AND id = ANY($2)`, [workspaceId, ids])
          : await manager.query(
              `SELECT id FROM records WHERE workspace_id = $1 AND object_type = $2 AND id = ANY($3)`,
              [workspaceId, objectType, ids],
            )) as { id: string }[]
      ).map((row) => row.id);
      const absent = ids.find((id) => !found.includes(id));
      if (absent !== undefined) throw missing(absent);
    }
  }

  private async applyLinks(
    manager: EntityManager,
    workspaceId: string,
    recordId: string,
    changes: LinkChange[],
  ): Promise<void> {
    for (const change of changes) {
      const { link, side } = change.definition.binding;
      const { self, other } = columnsOf(side);
      const current = (
        (await manager.query(`SELECT ${other} AS id FROM record_links WHERE ${self} = $1 AND link = $2`, [
          recordId,
          link,
        ])) as { id: string }[]
      ).map((row) => row.id);
      // Sets: a HAS_MANY relationship may hold many links, and comparing arrays would be quadratic.
      const removing = new Set(change.remove);
      const next = new Set(change.set ?? [...current.filter((id) => !removing.has(id)), ...change.add]);
      this.checkCardinality(change.definition, next.size);
      this.checkRequired(change.definition, next.size);
      const linked = new Set(current);
      const removed = current.filter((id) => !next.has(id));
      const added = [...next].filter((id) => !linked.has(id));
      if (removed.length > 0) {
        await manager.query(`DELETE FROM record_links WHERE ${self} = $1 AND link = $2 AND ${other} = ANY($3)`, [
          recordId,
          link,
          removed,
        ]);
      }
      if (added.length === 0) continue;
      if (side === 'target' && change.definition.inverseOfHasOne) {
        // Each added record may link to one record only through this link: move it here. Locking the
        // added records (in id order) makes concurrent moves of one record take turns, as its own
        // updates do, so that it never ends up linked twice.
        await manager.query(`SELECT 1 FROM records WHERE id = ANY($1) ORDER BY id FOR UPDATE`, [added]);
        await manager.query(`DELETE FROM record_links WHERE source_id = ANY($1) AND link = $2`, [added, link]);
      }
      await manager.query(
        `INSERT INTO record_links (workspace_id, ${self}, link, ${other})
         SELECT $1, $2, $3, unnest($4::text[]) ON CONFLICT DO NOTHING`,
        [workspaceId, recordId, link, added],
      );
    }
  }

  /** A required relationship (task `$assignedTo`, opportunity `$account`) cannot be emptied by an update. */
  private checkRequired(definition: RelationshipDefinition, linkCount: number): void {
    if (definition.required && linkCount === 0) throw ApiError.missing(`relationships.${definition.key}`);
  }

  private checkCardinality(definition: RelationshipDefinition, linkCount: number): void {
    if (definition.cardinality === 'HAS_ONE' && linkCount > 1) {
      const param = `relationships.${definition.key}`;
      throw ApiError.invalidValue(param, `${param} holds at most one id`);
    }
  }
}

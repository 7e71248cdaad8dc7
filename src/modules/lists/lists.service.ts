import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiError } from '../../common/errors/api-error';
import { isIdOf, newId } from '../../common/ids';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { isRecordIdOf } from '../../records/record-ids';
import { checkRelationshipWriteLimit, idList, isPlainObject } from '../../records/record-write';
import { storable } from '../../common/validation/storable-text';
import { RecordsService } from '../../records/records.service';
import { ListDto } from './lists.dto';

export const LIST_MEMBER_TYPES = ['account', 'contact', 'opportunity'] as const;
export type ListMemberType = (typeof LIST_MEMBER_TYPES)[number];

/** The relationship key that holds a list's members, per member type. */
const MEMBER_KEYS: Record<ListMemberType, string> = {
  account: '$accounts',
  contact: '$contacts',
  opportunity: '$opportunities',
};
const MAX_NAME_LENGTH = 10_000;

interface ListRow {
  id: string;
  name: string;
  object_type: ListMemberType;
  created_at: Date;
}

interface MemberChange {
  add: string[];
  remove: string[];
}

function readName(value: unknown): string {
  if (value === undefined || value === null) throw ApiError.missing('fields.$name');
  if (typeof value !== 'string') throw ApiError.invalidType('fields.$name', 'a string');
  if (value.trim().length === 0 || [...value].length > MAX_NAME_LENGTH || !storable(value)) {
    throw ApiError.invalidValue('fields.$name', `fields.$name must be 1 to ${MAX_NAME_LENGTH} characters, without NUL`);
  }
  return value;
}

/** `account`, or its `$account` alias (decisions §7); always stored bare. */
function readObjectType(value: unknown): ListMemberType {
  if (value === undefined || value === null) throw ApiError.missing('fields.$objectType');
  const bare = typeof value === 'string' ? value.replace(/^\$/, '') : undefined;
  if (!LIST_MEMBER_TYPES.includes(bare as ListMemberType)) {
    throw ApiError.invalidType('fields.$objectType', `one of ${LIST_MEMBER_TYPES.join(', ')}`);
  }
  return bare as ListMemberType;
}

/**
 * The two members of a create or update body. `null` for an optional member reads as absent
 * everywhere here (`fields`, `relationships`, a member key, `add`, `remove`); a `null` required
 * member (`$name`, `$objectType` on create) is missing.
 */
function readBody(body: unknown, allowedFields: string[]): { fields: Record<string, unknown>; relationships?: unknown } {
  const given = body ?? {};
  if (!isPlainObject(given)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
  for (const key of Object.keys(given)) {
    if (key !== 'fields' && key !== 'relationships') throw ApiError.unknownField(key);
  }
  if (given.fields != null && !isPlainObject(given.fields)) throw ApiError.invalidType('fields', 'an object');
  const fields = (given.fields ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (key === '$objectType' && !allowedFields.includes(key)) {
      throw new ApiError(422, 'read_only_field', 'fields.$objectType is fixed after create', 'fields.$objectType');
    }
    if (!allowedFields.includes(key)) throw ApiError.unknownField(`fields.${key}`);
  }
  return { fields, relationships: given.relationships };
}

/**
 * The member ids a create or update writes. Exactly one key, and it must be the one of the list's
 * type (422 `object_type_mismatch`); a key that is no member key at all is 400 `unknown_relationship`.
 */
function readMembers(raw: unknown, objectType: ListMemberType, isCreate: boolean): MemberChange {
  const none: MemberChange = { add: [], remove: [] };
  if (raw == null) return none;
  if (!isPlainObject(raw)) throw ApiError.invalidType('relationships', 'an object');
  const expected = MEMBER_KEYS[objectType];
  const keys = Object.keys(raw);
  for (const key of keys) {
    if (!Object.values(MEMBER_KEYS).includes(key)) {
      throw new ApiError(400, 'unknown_relationship', `relationships.${key} is not a list member key`, `relationships.${key}`);
    }
    if (key !== expected) {
      throw new ApiError(
        422,
        'object_type_mismatch',
        `This list holds ${objectType} records: its members are written under relationships.${expected}`,
        `relationships.${key}`,
      );
    }
  }
  const param = `relationships.${expected}`;
  const value = raw[expected];
  if (value == null) return none;
  let change: MemberChange;
  if (isCreate) {
    change = { add: idList(value, param), remove: [] };
  } else {
    if (!isPlainObject(value)) throw ApiError.invalidType(param, 'an object with add or remove');
    for (const operation of Object.keys(value)) {
      if (operation !== 'add' && operation !== 'remove') {
        throw new ApiError(400, 'invalid_operation', `${param} allows only add and remove`, `${param}.${operation}`);
      }
    }
    change = {
      add: value.add == null ? [] : idList(value.add, `${param}.add`),
      remove: value.remove == null ? [] : idList(value.remove, `${param}.remove`),
    };
  }
  checkRelationshipWriteLimit(change.add.length + change.remove.length);
  return change;
}

/** Lists of accounts, contacts or opportunities, and their members (newest membership first). */
@Injectable()
export class ListsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly records: RecordsService,
    private readonly config: AppConfig,
  ) {}

  async create(caller: AuthContext, body: unknown): Promise<ListDto> {
    const { fields, relationships } = readBody(body, ['$name', '$objectType']);
    const name = readName(fields.$name);
    const objectType = readObjectType(fields.$objectType);
    const members = readMembers(relationships, objectType, true);
    return this.transactions.run(async (manager) => {
      const id = newId('list');
      await manager.query(
        `INSERT INTO lists (id, workspace_id, name, object_type, created_at) VALUES ($1, $2, $3, $4, $5)`,
        [id, caller.workspaceId, name, objectType, new Date()],
      );
      await this.applyMembers(caller, id, objectType, members);
      return this.toDto(await this.find(caller, id));
    });
  }

  async update(caller: AuthContext, id: string, body: unknown): Promise<ListDto> {
    const list = await this.find(caller, id);
    const { fields, relationships } = readBody(body, ['$name']);
    const name = fields.$name === undefined ? undefined : readName(fields.$name);
    const members = readMembers(relationships, list.object_type, false);
    return this.transactions.run(async (manager) => {
      const locked = (await manager.query(`SELECT 1 FROM lists WHERE id = $1 FOR UPDATE`, [id])) as unknown[];
      if (locked.length === 0) throw ApiError.notFound('List');
      await manager.query(`UPDATE lists SET name = coalesce($2, name), updated_at = $3 WHERE id = $1`, [
        id,
        name ?? null,
        new Date(),
      ]);
      await this.applyMembers(caller, id, list.object_type, members);
      return this.toDto(await this.find(caller, id));
    });
  }

  async get(caller: AuthContext, id: string): Promise<ListDto> {
    return this.toDto(await this.find(caller, id));
  }

  /**
   * A page, newest first, and the count of the workspace's lists, from one statement: one
   * snapshot, so a page never holds more than `totalCount - offset` lists while others are being
   * created. The count row is joined to the page, so an offset past the end still reads the count.
   * `created_at` is written in milliseconds (a JS Date), the precision the API shows.
   */
  async list(caller: AuthContext, page: PageRequest): Promise<PageResult<ListDto>> {
    const rows = (await this.transactions.manager.query(
      `SELECT counted.total, paged.*
         FROM (SELECT count(*)::int AS total FROM lists WHERE workspace_id = $1) counted
         LEFT JOIN LATERAL (SELECT id, name, object_type, created_at FROM lists WHERE workspace_id = $1
                             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3) paged ON true
        ORDER BY paged.created_at DESC, paged.id DESC`,
      [caller.workspaceId, page.limit, page.offset],
    )) as (ListRow & { total: number })[];
    const lists = rows.filter((row) => row.id !== null);
    return { data: lists.map((row) => this.toDto(row)), totalCount: rows[0].total };
  }

  /** The records of a list, most recently added first, as entity envelopes. */
  async members(
    caller: AuthContext,
    listId: string,
    memberType: ListMemberType,
    page: PageRequest,
  ): Promise<PageResult<EntityEnvelopeDto>> {
    const list = await this.find(caller, listId);
    if (list.object_type !== memberType) {
      throw new ApiError(
        422,
        'object_type_mismatch',
        `List ${listId} holds ${list.object_type} records; read them at /v1/lists/${listId}/${MEMBER_KEYS[list.object_type].slice(1)}`,
        'listId',
      );
    }
    return this.records.listMembers(caller, memberType, listId, page);
  }

  private async find(caller: AuthContext, id: string): Promise<ListRow> {
    const rows = isIdOf('list', id)
      ? ((await this.transactions.manager.query(
          `SELECT id, name, object_type, created_at FROM lists WHERE id = $1 AND workspace_id = $2`,
          [id, caller.workspaceId],
        )) as ListRow[])
      : [];
    if (rows.length === 0) throw ApiError.notFound('List');
    return rows[0];
  }

  /** Removes, then adds; a member added twice is listed once, at its first addition. */
  private async applyMembers(caller: AuthContext, listId: string, objectType: ListMemberType, change: MemberChange) {
    const manager = this.transactions.manager;
    const param = `relationships.${MEMBER_KEYS[objectType]}`;
    if (change.add.length > 0) {
      const malformed = change.add.find((id) => !isRecordIdOf(objectType, id));
      const found = malformed
        ? []
        : ((await manager.query(
            `SELECT id FROM records WHERE workspace_id = $1 AND object_type = $2 AND id = ANY($3)`,
            [caller.workspaceId, objectType, change.add],
          )) as { id: string }[]).map((row) => row.id);
      const missing = malformed ?? change.add.find((id) => !found.includes(id));
      if (missing !== undefined) {
        throw new ApiError(422, 'relationship_entity_missing', `No ${objectType} ${missing} in this workspace`, param);
      }
    }
    if (change.remove.length > 0) {
      await manager.query(`DELETE FROM list_members WHERE list_id = $1 AND record_id = ANY($2)`, [listId, change.remove]);
    }
    const unique = [...new Set(change.add)];
    for (const id of unique) {
      // One statement per id, in request order, so added_at orders them as given.
      await manager.query(`INSERT INTO list_members (list_id, record_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
        listId,
        id,
      ]);
    }
  }

  private toDto(row: ListRow): ListDto {
    return {
      id: row.id,
      createdAt: row.created_at.toISOString(),
      fields: {
        $name: { value: row.name, valueType: 'TEXT' },
        $objectType: { value: row.object_type, valueType: 'SINGLE_SELECT' },
      },
      httpLink: this.config.publicAppUrl ? `${this.config.publicAppUrl}/list/${row.id}` : null,
    };
  }
}

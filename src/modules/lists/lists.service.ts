import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiError } from '../../common/errors/api-error';
import { conditionFailure, type WriteCondition } from '../../common/http/entity-tags';
import { isIdOf, newId } from '../../common/ids';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { validateEntry } from '../../common/validation/validation.pipe';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { ChangeEvents } from '../../records/change-events';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { LinkTargets } from '../../records/link-targets';
import { checkRelationshipWriteLimit, idList, isPlainObject } from '../../records/record-write';
import { RecordsService } from '../../records/records.service';
import { CreateListDto, ListDto, ListMembershipChangeDto, UpdateListDto, UpdateListFieldsDto } from './lists.dto';
import type { ListMemberType } from '../../database/entities/list.entity';
import { ListRow, ListsRepository } from './lists.repository';

/** The relationship key that holds a list's members, per member type. */
const MEMBER_KEYS: Record<ListMemberType, string> = {
  account: '$accounts',
  contact: '$contacts',
  opportunity: '$opportunities',
};

interface MemberChange {
  add: string[];
  remove: string[];
}

/** A malformed id, another workspace's list and an unknown one are all a plain 404. */
function notFound(): ApiError {
  return ApiError.notFound('List');
}

/** The new name an update's `fields` ask for, if any (see UpdateListDto). */
function readNewName(fields: Record<string, unknown> | undefined): string | undefined {
  if (fields === undefined) return undefined;
  if (Object.hasOwn(fields, '$objectType')) {
    throw new ApiError(422, 'read_only_field', 'fields.$objectType is fixed after create', 'fields.$objectType');
  }
  if (fields.$name === null) throw ApiError.missing('fields.$name');
  return validateEntry(UpdateListFieldsDto, fields, 'fields').$name;
}

/**
 * The member ids a create or update writes. Exactly one key, and it must be the one of the list's
 * type (422 `object_type_mismatch`); a key that is no member key at all is 400 `unknown_relationship`.
 */
function readMembers(
  raw: Record<string, unknown> | undefined,
  objectType: ListMemberType,
  isCreate: boolean,
): MemberChange {
  const none: MemberChange = { add: [], remove: [] };
  if (raw === undefined) return none;
  const expected = MEMBER_KEYS[objectType];
  const keys = Object.keys(raw);
  for (const key of keys) {
    if (!Object.values(MEMBER_KEYS).includes(key)) {
      throw new ApiError(
        400,
        'unknown_relationship',
        `relationships.${key} is not a list member key`,
        `relationships.${key}`,
      );
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
    // The operations a list does not have (`replace`) are invalid operations, as on record relationships.
    for (const operation of isPlainObject(value) ? Object.keys(value) : []) {
      if (operation !== 'add' && operation !== 'remove') {
        throw new ApiError(400, 'invalid_operation', `${param} allows only add and remove`, `${param}.${operation}`);
      }
    }
    const { add, remove } = validateEntry(ListMembershipChangeDto, value, param);
    change = { add: [add ?? []].flat(), remove: [remove ?? []].flat() };
  }
  checkRelationshipWriteLimit(change.add.length + change.remove.length);
  return change;
}

/** Lists of accounts, contacts or opportunities, and their members (newest membership first). */
@Injectable()
export class ListsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly lists: ListsRepository,
    private readonly records: RecordsService,
    private readonly targets: LinkTargets,
    private readonly events: ChangeEvents,
    private readonly config: AppConfig,
  ) {}

  async create(caller: AuthContext, body: CreateListDto): Promise<ListDto> {
    const objectType = body.fields.$objectType.replace(/^\$/, '') as ListMemberType;
    const members = readMembers(body.relationships, objectType, true);
    return this.transactions.run(async () => {
      const list = await this.lists.insert({
        id: newId('list'),
        workspaceId: caller.workspaceId,
        name: body.fields.$name,
        objectType,
      });
      const dto = this.toDto(list);
      this.events.record({
        workspaceId: caller.workspaceId,
        entityType: 'list',
        entityId: list.id,
        action: 'created',
        data: dto,
      });
      // A list's first members are part of its creation: its version stays 1.
      this.recordMemberEvents(caller, dto, await this.applyMembers(caller, list, members));
      return dto;
    });
  }

  /**
   * Renames and changes members as the body says, if the list meets `condition` (its If-Match,
   * compared with the version locked by the rename's statement: a mismatch rolls that back). A new
   * name, and any member that joins or leaves, count once in the version.
   */
  async update(caller: AuthContext, id: string, body: UpdateListDto, condition?: WriteCondition): Promise<ListDto> {
    const name = readNewName(body.fields);
    if (!isIdOf('list', id)) throw notFound();
    return this.transactions.run(async () => {
      const list = await this.lists.update(caller.workspaceId, id, name);
      if (!list) throw notFound();
      const failure = conditionFailure(condition, list.previous_version);
      if (failure) throw failure;
      const renamed = list.name !== list.previous_name;
      const members = await this.applyMembers(caller, list, readMembers(body.relationships, list.object_type, false));
      const membersChanged = members.add.length + members.remove.length > 0;
      const version = membersChanged && !renamed ? await this.lists.countMemberChange(list.id) : list.version;
      const dto = this.toDto({ ...list, version });
      if (renamed) {
        const changes = { fields: ['$name'], relationships: [] };
        this.events.record({
          workspaceId: caller.workspaceId,
          entityType: 'list',
          entityId: list.id,
          action: 'updated',
          data: dto,
          changes,
        });
      }
      this.recordMemberEvents(caller, dto, members);
      return dto;
    });
  }

  async get(caller: AuthContext, id: string): Promise<ListDto> {
    const list = isIdOf('list', id) ? await this.lists.find(caller.workspaceId, id) : undefined;
    if (!list) throw notFound();
    return this.toDto(list);
  }

  async list(caller: AuthContext, page: PageRequest): Promise<PageResult<ListDto>> {
    const { rows, total, next } = await this.lists.page(caller.workspaceId, page);
    return { data: rows.map((list) => this.toDto(list)), totalCount: total, next };
  }

  /** The records of a list, most recently added first, as entity envelopes: the list's page, then its records. */
  async members(
    caller: AuthContext,
    listId: string,
    memberType: ListMemberType,
    page: PageRequest,
  ): Promise<PageResult<EntityEnvelopeDto>> {
    const found = isIdOf('list', listId) ? await this.lists.membersPage(caller.workspaceId, listId, page) : undefined;
    if (!found) throw notFound();
    const { list, members } = found;
    if (list.object_type !== memberType) {
      throw new ApiError(
        422,
        'object_type_mismatch',
        `List ${listId} holds ${list.object_type} records; read them at /v1/lists/${listId}/${MEMBER_KEYS[list.object_type].slice(1)}`,
        'listId',
      );
    }
    const data = await this.records.getMany(caller, memberType, members.rows);
    return { data, totalCount: members.total, next: members.next };
  }

  /**
   * Removes, then adds; a member added twice is listed once, at its first addition. Answers the
   * members that joined and left.
   */
  private async applyMembers(caller: AuthContext, list: ListRow, change: MemberChange): Promise<MemberChange> {
    const param = `relationships.${MEMBER_KEYS[list.object_type]}`;
    await this.targets.verify(caller.workspaceId, list.object_type, change.add, param);
    const removed = change.remove.length > 0 ? await this.lists.removeMembers(list.id, change.remove) : [];
    const added = await this.lists.addMembers(list.id, [...new Set(change.add)]);
    return { add: added, remove: removed };
  }

  /** Each member that joined or left the list is an event of the list, which carries the list as it is after. */
  private recordMemberEvents(caller: AuthContext, data: ListDto, { add, remove }: MemberChange): void {
    for (const [action, memberIds] of [
      ['member_removed', remove],
      ['member_added', add],
    ] as const) {
      for (const memberId of memberIds)
        this.events.record({
          workspaceId: caller.workspaceId,
          entityType: 'list',
          entityId: data.id,
          action,
          data,
          memberId,
        });
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
      version: row.version,
      httpLink: this.config.publicAppUrl ? `${this.config.publicAppUrl}/list/${row.id}` : null,
    };
  }
}

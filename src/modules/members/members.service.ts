import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../../common/errors/api-error';
import { newId, isIdOf } from '../../common/ids';
import { PageRequest, PageResult } from '../../common/pagination/pagination';
import { MemberEntity, MemberRole } from '../../database/entities/member.entity';
import { Transactions } from '../../database/transactions';
import { EntityEnvelopeDto, StoredEntity, toEntityEnvelope } from '../../records/entity-envelope';
import { filterSql, SqlParameterList } from '../../records/record-filters';
import { MEMBER_TYPE } from './member.type';

function toStoredEntity(member: MemberEntity): StoredEntity {
  const name =
    member.firstName === null && member.lastName === null
      ? null
      : {
          ...(member.firstName !== null && { firstName: member.firstName }),
          ...(member.lastName !== null && { lastName: member.lastName }),
        };
  return {
    id: member.id,
    createdAt: member.createdAt,
    updatedAt: member.updatedAt,
    externalId: null,
    fields: { $email: member.email, $name: name, $role: member.role },
    links: new Map(),
  };
}

@Injectable()
export class MembersService {
  constructor(
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
  ) {}

  toEnvelope(member: MemberEntity): EntityEnvelopeDto {
    return toEntityEnvelope(MEMBER_TYPE, toStoredEntity(member), this.config.publicAppUrl);
  }

  async get(workspaceId: string, id: string): Promise<EntityEnvelopeDto> {
    const member = isIdOf('member', id)
      ? await this.transactions.manager.findOneBy(MemberEntity, { id, workspaceId })
      : null;
    if (!member) throw ApiError.notFound('Member');
    return this.toEnvelope(member);
  }

  /**
   * Newest first, with the record filters of decisions §8: members are presented to the filter
   * engine as rows with the same `fields` document their envelope shows.
   */
  async list(workspaceId: string, page: PageRequest): Promise<PageResult<EntityEnvelopeDto>> {
    const params = new SqlParameterList();
    const where = [`r.workspace_id = ${params.add(workspaceId)}`, ...filterSql(MEMBER_TYPE, page.filters, params, { valueIndex: false }).conditions];
    const source = `(SELECT m.*, jsonb_strip_nulls(jsonb_build_object(
        '$email', lower(m.email),
        '$name', nullif(jsonb_strip_nulls(jsonb_build_object('firstName', m.first_name, 'lastName', m.last_name)), '{}'::jsonb),
        '$role', m.role)) AS fields
      FROM members m) r`;
    const manager = this.transactions.manager;
    const [{ count }] = (await manager.query(
      `SELECT count(*)::int AS count FROM ${source} WHERE ${where.join(' AND ')}`,
      params.values,
    )) as [{ count: number }];
    const ids = (
      (await manager.query(
        `SELECT r.id FROM ${source} WHERE ${where.join(' AND ')}
          ORDER BY r.created_at DESC, r.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
        params.values,
      )) as { id: string }[]
    ).map((row) => row.id);
    const members = ids.length ? await manager.findBy(MemberEntity, { id: In(ids) }) : [];
    const byId = new Map(members.map((member) => [member.id, member]));
    return { data: ids.map((id) => this.toEnvelope(byId.get(id)!)), totalCount: count };
  }

  /** Operator API: a new member; an email already in the workspace is 409 `duplicate_value`. */
  async create(input: {
    workspaceId: string;
    email: string;
    firstName?: string;
    lastName?: string;
    role?: MemberRole;
  }): Promise<MemberEntity> {
    return this.transactions.run(async (manager) => {
      const taken = await manager
        .createQueryBuilder(MemberEntity, 'm')
        .where('m.workspace_id = :workspaceId AND lower(m.email) = lower(:email)', input)
        .getExists();
      if (taken) {
        throw new ApiError(409, 'duplicate_value', `A member with email ${input.email} already exists`, 'email');
      }
      const member = manager.create(MemberEntity, {
        id: newId('member'),
        workspaceId: input.workspaceId,
        email: input.email,
        firstName: input.firstName ?? null,
        lastName: input.lastName ?? null,
        role: input.role ?? 'member',
        createdAt: new Date(),
        updatedAt: null,
      });
      return manager.save(member);
    });
  }
}

import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../../common/errors/api-error';
import { newId, isIdOf } from '../../common/ids';
import { PageRequest, PageResult } from '../../common/pagination/pagination';
import { MemberEntity, MemberRole } from '../../database/entities/member.entity';
import { Transactions } from '../../database/transactions';
import { EntityEnvelopeDto, StoredEntity, toEntityEnvelope } from '../../records/entity-envelope';
import { filterSql, SqlParameterList } from '../../records/record-filters';
import { MEMBER_TYPE } from './member.type';

type MemberShown = Pick<MemberEntity, 'id' | 'email' | 'firstName' | 'lastName' | 'role' | 'createdAt' | 'updatedAt'>;

/** A member as a row of the list statement (timestamps come through json_agg as text). */
interface MemberRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: MemberRole;
  created_at: string;
  updated_at: string | null;
}

function fromRow(row: MemberRow): MemberShown {
  return {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role,
    createdAt: new Date(row.created_at),
    updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
  };
}

function toStoredEntity(member: MemberShown): StoredEntity {
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

  toEnvelope(member: MemberShown): EntityEnvelopeDto {
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
   * engine as rows with the same `fields` document their envelope shows. The count and the page
   * are one statement, so they come from one snapshot: a page never outgrows its `totalCount`.
   */
  async list(workspaceId: string, page: PageRequest): Promise<PageResult<EntityEnvelopeDto>> {
    const params = new SqlParameterList();
    const { conditions } = filterSql(MEMBER_TYPE, page.filters, params, { valueIndex: false });
    const where = [`r.workspace_id = ${params.add(workspaceId)}`, ...conditions].join(' AND ');
    const source = `(SELECT m.*, jsonb_strip_nulls(jsonb_build_object(
        '$email', lower(m.email),
        '$name', nullif(jsonb_strip_nulls(jsonb_build_object('firstName', m.first_name, 'lastName', m.last_name)), '{}'::jsonb),
        '$role', m.role)) AS fields
      FROM members m) r`;
    const [result] = (await this.transactions.manager.query(
      `SELECT (SELECT count(*)::int FROM ${source} WHERE ${where}) AS total,
              coalesce((SELECT json_agg(p ORDER BY p.created_at DESC, p.id DESC)
                          FROM (SELECT r.id, r.email, r.first_name, r.last_name, r.role, r.created_at, r.updated_at
                                  FROM ${source} WHERE ${where}
                                 ORDER BY r.created_at DESC, r.id DESC LIMIT ${page.limit} OFFSET ${page.offset}) p),
                       '[]'::json) AS rows`,
      params.values,
    )) as [{ total: number; rows: MemberRow[] }];
    return { data: result.rows.map((row) => this.toEnvelope(fromRow(row))), totalCount: result.total };
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

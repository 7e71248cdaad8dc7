import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../../common/errors/api-error';
import { newId, isIdOf } from '../../common/ids';
import { PageRequest, PageResult } from '../../common/pagination/pagination';
import { MemberEntity, MemberRole } from '../../database/entities/member.entity';
import { Transactions } from '../../database/transactions';
import { EntityEnvelopeDto, StoredEntity, toEntityEnvelope } from '../../records/entity-envelope';
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
    links: {},
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

  async list(workspaceId: string, page: PageRequest): Promise<PageResult<EntityEnvelopeDto>> {
    const [members, totalCount] = await this.transactions.manager.findAndCount(MemberEntity, {
      where: { workspaceId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: page.limit,
      skip: page.offset,
    });
    return { data: members.map((member) => this.toEnvelope(member)), totalCount };
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

import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../../common/errors/api-error';
import { isIdOf, newId } from '../../common/ids';
import { PageRequest, PageResult } from '../../common/pagination/pagination';
import { MemberEntity, MemberRole } from '../../database/entities/member.entity';
import { Transactions } from '../../database/transactions';
import { EntityEnvelopeDto, StoredEntity, toEntityEnvelope } from '../../records/entity-envelope';
import { MEMBER_TYPE } from './member.type';
import { MembersRepository } from './members.repository';

type MemberShown = Pick<MemberEntity, 'id' | 'email' | 'firstName' | 'lastName' | 'role' | 'createdAt' | 'updatedAt'>;

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

/** Members as records (read-only through the public API) and their creation by the operator API. */
@Injectable()
export class MembersService {
  constructor(
    private readonly members: MembersRepository,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
  ) {}

  toEnvelope(member: MemberShown): EntityEnvelopeDto {
    return toEntityEnvelope(MEMBER_TYPE, toStoredEntity(member), this.config.publicAppUrl);
  }

  /** The member `id` of the workspace, or null. */
  async findInWorkspace(workspaceId: string, id: string): Promise<MemberEntity | null> {
    return this.members.findInWorkspace(workspaceId, id);
  }

  /** Every member's email, lowercased as the EMAIL field type stores addresses. */
  async emailsOf(workspaceId: string): Promise<string[]> {
    return this.members.emailsOf(workspaceId);
  }

  async get(workspaceId: string, id: string): Promise<EntityEnvelopeDto> {
    const member = isIdOf('member', id) ? await this.members.findInWorkspace(workspaceId, id) : null;
    if (!member) throw ApiError.notFound('Member');
    return this.toEnvelope(member);
  }

  async list(workspaceId: string, page: PageRequest): Promise<PageResult<EntityEnvelopeDto>> {
    const { rows, total, next } = await this.members.page(workspaceId, page);
    return { data: rows.map((member) => this.toEnvelope(member)), totalCount: total, next };
  }

  /** Operator API: a new member; an email already in the workspace is 409 `duplicate_value`. */
  async create(input: {
    workspaceId: string;
    email: string;
    firstName?: string;
    lastName?: string;
    role?: MemberRole;
  }): Promise<MemberEntity> {
    return this.transactions.run(async () => {
      if (await this.members.emailTaken(input.workspaceId, input.email)) {
        throw new ApiError(409, 'duplicate_value', `A member with email ${input.email} already exists`, 'email');
      }
      return this.members.insert(
        Object.assign(new MemberEntity(), {
          id: newId('member'),
          workspaceId: input.workspaceId,
          email: input.email,
          firstName: input.firstName ?? null,
          lastName: input.lastName ?? null,
          role: input.role ?? 'member',
          createdAt: new Date(),
          updatedAt: null,
        }),
      );
    });
  }
}

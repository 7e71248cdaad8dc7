import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '../../common/auth/api-keys.service';
import { ApiError } from '../../common/errors/api-error';
import { isIdOf } from '../../common/ids';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { type Workspace, type WorkspaceSettings, WorkspacesService } from '../../records/workspaces.service';
import { MembersService } from '../members/members.service';
import { CreateApiKeyDto, CreatedApiKeyDto, CreateMemberDto, RevokedApiKeyDto, WorkspaceDto } from './dto/admin.dto';

function toWorkspaceDto({ id, name, createdAt, requirePreconditions }: Workspace): WorkspaceDto {
  return { id, name, createdAt: createdAt.toISOString(), requirePreconditions };
}

/** The operator API's operations (docs/api.md §6), shared by the admin controller and the CLI. */
@Injectable()
export class AdminService {
  constructor(
    private readonly members: MembersService,
    private readonly workspaces: WorkspacesService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async createWorkspace(name: string): Promise<WorkspaceDto> {
    return toWorkspaceDto(await this.workspaces.create(name));
  }

  async updateWorkspaceSettings(workspaceId: string, settings: WorkspaceSettings): Promise<WorkspaceDto> {
    return toWorkspaceDto(await this.workspaces.updateSettings(workspaceId, settings));
  }

  async createMember(workspaceId: string, input: CreateMemberDto): Promise<EntityEnvelopeDto> {
    await this.workspaces.requireExisting(workspaceId);
    const member = await this.members.create({ workspaceId, ...input });
    return this.members.toEnvelope(member);
  }

  async createApiKey(workspaceId: string, input: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    await this.workspaces.requireExisting(workspaceId);
    const member = isIdOf('member', input.memberId)
      ? await this.members.findInWorkspace(workspaceId, input.memberId)
      : null;
    if (!member) {
      throw new ApiError(
        422,
        'relationship_entity_missing',
        `No member ${input.memberId} in workspace ${workspaceId}`,
        'memberId',
      );
    }
    const { id, secret, scopes, memberId, createdAt } = await this.apiKeys.issue({
      workspaceId,
      memberId: member.id,
      name: input.name,
      scopes: input.scopes,
    });
    return { id, key: secret, scopes, memberId, createdAt: createdAt.toISOString() };
  }

  /** Takes effect at once: every request looks its key up. Revoking twice keeps the first time. */
  async revokeApiKey(keyId: string): Promise<RevokedApiKeyDto> {
    const revokedAt = await this.apiKeys.revoke(keyId);
    if (!revokedAt) throw ApiError.notFound('API key');
    return { id: keyId, revokedAt: revokedAt.toISOString() };
  }
}

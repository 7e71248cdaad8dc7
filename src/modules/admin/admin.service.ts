import { Injectable } from '@nestjs/common';
import { generateApiKeySecret, hashSecret } from '../../common/auth/api-key-secret';
import { ApiError } from '../../common/errors/api-error';
import { isIdOf, newId } from '../../common/ids';
import { ApiKeyEntity, MemberEntity, WorkspaceEntity } from '../../database/entities';
import { Transactions } from '../../database/transactions';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { MembersService } from '../members/members.service';
import { CreateApiKeyDto, CreatedApiKeyDto, CreateMemberDto, RevokedApiKeyDto, WorkspaceDto } from './dto/admin.dto';

/** The operator API's operations (decisions §6), shared by the admin controller and the CLI. */
@Injectable()
export class AdminService {
  constructor(
    private readonly transactions: Transactions,
    private readonly members: MembersService,
  ) {}

  async createWorkspace(name: string): Promise<WorkspaceDto> {
    const workspace = await this.transactions.manager.save(
      this.transactions.manager.create(WorkspaceEntity, { id: newId('workspace'), name, createdAt: new Date() }),
    );
    return { id: workspace.id, name: workspace.name, createdAt: workspace.createdAt.toISOString() };
  }

  async createMember(workspaceId: string, input: CreateMemberDto): Promise<EntityEnvelopeDto> {
    await this.requireWorkspace(workspaceId);
    const member = await this.members.create({ workspaceId, ...input });
    return this.members.toEnvelope(member);
  }

  async createApiKey(workspaceId: string, input: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    await this.requireWorkspace(workspaceId);
    const member = isIdOf('member', input.memberId)
      ? await this.transactions.manager.findOneBy(MemberEntity, { id: input.memberId, workspaceId })
      : null;
    if (!member) {
      throw new ApiError(
        422,
        'relationship_entity_missing',
        `No member ${input.memberId} in workspace ${workspaceId}`,
        'memberId',
      );
    }
    const secret = generateApiKeySecret();
    const scopes = [...new Set(input.scopes)];
    const key = await this.transactions.manager.save(
      this.transactions.manager.create(ApiKeyEntity, {
        id: newId('apiKey'),
        workspaceId,
        memberId: member.id,
        name: input.name ?? null,
        keyHash: hashSecret(secret),
        scopes,
        createdAt: new Date(),
        revokedAt: null,
      }),
    );
    return { id: key.id, key: secret, scopes, memberId: key.memberId, createdAt: key.createdAt.toISOString() };
  }

  /** Takes effect at once: every request looks its key up. Revoking twice keeps the first time. */
  async revokeApiKey(keyId: string): Promise<RevokedApiKeyDto> {
    if (!isIdOf('apiKey', keyId)) throw ApiError.notFound('API key');
    const rows = (await this.transactions.manager.query(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id, revoked_at`,
      [keyId],
    )) as [{ id: string; revoked_at: Date }[], number];
    const row = rows[0][0];
    if (!row) throw ApiError.notFound('API key');
    return { id: row.id, revokedAt: row.revoked_at.toISOString() };
  }

  private async requireWorkspace(workspaceId: string): Promise<void> {
    const exists =
      isIdOf('workspace', workspaceId) &&
      (await this.transactions.manager.existsBy(WorkspaceEntity, { id: workspaceId }));
    if (!exists) throw ApiError.notFound('Workspace');
  }
}

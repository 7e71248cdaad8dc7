import { Body, Controller, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminRoute } from '../../common/auth/auth.decorators';
import { exampleIdOf } from '../../common/ids';
import { ApiJsonBody } from '../../common/openapi/api-json-body';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { AdminService } from './admin.service';
import {
  CreateApiKeyDto,
  CreatedApiKeyDto,
  CreateMemberDto,
  CreateWorkspaceDto,
  RevokedApiKeyDto,
  UpdateWorkspaceSettingsDto,
  WorkspaceDto,
} from './dto/admin.dto';

@ApiTags('Operator')
@Controller('admin/v1')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Post('workspaces')
  @AdminRoute({ summary: 'Create a workspace', response: WorkspaceDto })
  @ApiJsonBody(CreateWorkspaceDto, { summary: 'A workspace', value: { name: 'Acme' } })
  createWorkspace(@Body() body: CreateWorkspaceDto): Promise<WorkspaceDto> {
    return this.admin.createWorkspace(body.name);
  }

  @Post('workspaces/:workspaceId/settings')
  @AdminRoute({ summary: 'Change a workspace’s settings: only those given change', response: WorkspaceDto })
  @ApiJsonBody(UpdateWorkspaceSettingsDto, {
    summary: 'Writes that could overwrite another’s change need If-Match',
    value: { requirePreconditions: true },
  })
  updateWorkspaceSettings(
    @Param('workspaceId') workspaceId: string,
    @Body() body: UpdateWorkspaceSettingsDto,
  ): Promise<WorkspaceDto> {
    return this.admin.updateWorkspaceSettings(workspaceId, body);
  }

  @Post('workspaces/:workspaceId/members')
  @AdminRoute({ summary: 'Add a member to a workspace', response: EntityEnvelopeDto })
  @ApiJsonBody(CreateMemberDto, {
    summary: 'A member (an email is one member per workspace)',
    value: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', role: 'member' },
  })
  createMember(@Param('workspaceId') workspaceId: string, @Body() body: CreateMemberDto): Promise<EntityEnvelopeDto> {
    return this.admin.createMember(workspaceId, body);
  }

  @Post('workspaces/:workspaceId/api-keys')
  @AdminRoute({
    summary: 'Issue an API key (the key is shown once)',
    response: CreatedApiKeyDto,
    errors: ['relationship_entity_missing'],
  })
  @ApiJsonBody(CreateApiKeyDto, {
    summary: 'A key with every scope; memberId needs the id of one of the workspace’s members',
    value: { memberId: exampleIdOf('member'), scopes: ['*'], name: 'Integration' },
  })
  createApiKey(@Param('workspaceId') workspaceId: string, @Body() body: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.admin.createApiKey(workspaceId, body);
  }

  @Post('api-keys/:keyId/revoke')
  @AdminRoute({ summary: 'Revoke an API key, effective at once', response: RevokedApiKeyDto })
  revokeApiKey(@Param('keyId') keyId: string): Promise<RevokedApiKeyDto> {
    return this.admin.revokeApiKey(keyId);
  }
}

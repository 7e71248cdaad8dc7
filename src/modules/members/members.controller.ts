import { Controller, Get, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { Page, Paginated } from '../../common/pagination/pagination';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { listFilterExample } from '../../records/record-write.schema';
import { MEMBER_TYPE } from './member.type';
import { MembersService } from './members.service';

@ApiTags('Members')
@Controller('v1/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @Endpoint({
    summary: 'List the members of the workspace, newest first, with ?key[operator]=value filters',
    category: 'search',
    scopes: ['members:read'],
  })
  @Paginated(EntityEnvelopeDto, { filters: listFilterExample(MEMBER_TYPE) })
  list(@Caller() caller: AuthContext, @Page() page: PageRequest): Promise<PageResult<EntityEnvelopeDto>> {
    return this.members.list(caller.workspaceId, page);
  }

  @Get(':id')
  @Endpoint({
    summary: 'Retrieve a member',
    category: 'read',
    scopes: ['members:read'],
    response: EntityEnvelopeDto,
  })
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<EntityEnvelopeDto> {
    return this.members.get(caller.workspaceId, id);
  }
}

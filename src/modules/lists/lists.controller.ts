import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { Preconditions, type WriteCondition } from '../../common/http/entity-tags';
import { ApiJsonBody } from '../../common/openapi/api-json-body';
import { RECORD_WRITE_ERRORS } from '../../records/record-write';
import { Page, Paginated } from '../../common/pagination/pagination';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { CreateListDto, ListDto, UpdateListDto } from './lists.dto';
import { ListsService } from './lists.service';

/** A list's members are written as a record's relationships, of the list's type alone. */
const LIST_WRITE_ERRORS = [...RECORD_WRITE_ERRORS, 'object_type_mismatch'] as const;

/** A list's members read at another type's route. */
const MEMBER_ERRORS = ['object_type_mismatch'] as const;

@ApiTags('Lists')
@Controller('v1/lists')
export class ListsController {
  constructor(private readonly lists: ListsService) {}

  @Post()
  @Endpoint({
    summary: 'Create a list of accounts, contacts or opportunities',
    category: 'write',
    scopes: ['lists:create'],
    response: ListDto,
    errors: LIST_WRITE_ERRORS,
    conditional: 'create',
  })
  @ApiJsonBody(CreateListDto, {
    summary: 'An empty list of accounts (add members with relationships.$accounts)',
    value: { fields: { $name: 'Key accounts', $objectType: 'account' } },
  })
  create(@Caller() caller: AuthContext, @Body() body: CreateListDto): Promise<ListDto> {
    return this.lists.create(caller, body);
  }

  @Post(':id')
  @Endpoint({
    summary: 'Rename a list, or add and remove members',
    category: 'write',
    scopes: ['lists:update'],
    response: ListDto,
    errors: LIST_WRITE_ERRORS,
    conditional: 'update',
  })
  @ApiJsonBody(UpdateListDto, { summary: 'Rename a list', value: { fields: { $name: 'Key accounts 2026' } } })
  update(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Body() body: UpdateListDto,
    @Preconditions() condition: WriteCondition | undefined,
  ): Promise<ListDto> {
    return this.lists.update(caller, id, body, condition);
  }

  @Get(':id')
  @Endpoint({
    summary: 'Retrieve a list',
    category: 'read',
    scopes: ['lists:read'],
    response: ListDto,
    conditional: 'read',
  })
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<ListDto> {
    return this.lists.get(caller, id);
  }

  @Get()
  @Endpoint({ summary: 'List the lists, newest first', category: 'search', scopes: ['lists:read'] })
  @Paginated(ListDto)
  list(@Caller() caller: AuthContext, @Page() page: PageRequest): Promise<PageResult<ListDto>> {
    return this.lists.list(caller, page);
  }

  @Get(':listId/accounts')
  @Endpoint({
    summary: 'The accounts of a list, most recently added first',
    category: 'search',
    scopes: ['lists:read', 'accounts:read'],
    errors: MEMBER_ERRORS,
  })
  @Paginated(EntityEnvelopeDto)
  accounts(
    @Caller() caller: AuthContext,
    @Param('listId') listId: string,
    @Page() page: PageRequest,
  ): Promise<PageResult<EntityEnvelopeDto>> {
    return this.lists.members(caller, listId, 'account', page);
  }

  @Get(':listId/contacts')
  @Endpoint({
    summary: 'The contacts of a list, most recently added first',
    category: 'search',
    scopes: ['lists:read', 'contacts:read'],
    errors: MEMBER_ERRORS,
  })
  @Paginated(EntityEnvelopeDto)
  contacts(
    @Caller() caller: AuthContext,
    @Param('listId') listId: string,
    @Page() page: PageRequest,
  ): Promise<PageResult<EntityEnvelopeDto>> {
    return this.lists.members(caller, listId, 'contact', page);
  }

  @Get(':listId/opportunities')
  @Endpoint({
    summary: 'The opportunities of a list, most recently added first',
    category: 'search',
    scopes: ['lists:read', 'opportunities:read'],
    errors: MEMBER_ERRORS,
  })
  @Paginated(EntityEnvelopeDto)
  opportunities(
    @Caller() caller: AuthContext,
    @Param('listId') listId: string,
    @Page() page: PageRequest,
  ): Promise<PageResult<EntityEnvelopeDto>> {
    return this.lists.members(caller, listId, 'opportunity', page);
  }
}

import { Body, Controller, Get, Param, Post, Res } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Preconditions, type WriteCondition } from '../../common/http/entity-tags';
import { Endpoint } from '../../common/auth/auth.decorators';
import { ApiJsonBody } from '../../common/openapi/api-json-body';
import { Page, Paginated } from '../../common/pagination/pagination';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { DefinitionsDto } from '../../records/definitions.dto';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { BatchRoutes, batchStatus, UpsertAnswerDto } from '../../records/record-batch.schema';
import type { BatchAnswer } from '../../records/record-batches';
import { CUSTOM_RECORD_TYPE, recordWriteSchema } from '../../records/record-write.schema';
import { RECORD_WRITE_ERRORS } from '../../records/record-write';
import { ObjectTypeListDto } from './objects.dto';
import { ObjectsService } from './objects.service';
import {
  PROJECT_CREATE_EXAMPLE,
  PROJECT_FILTER_EXAMPLE,
  PROJECT_SLUG,
  PROJECT_UNIQUE_FIELD,
  PROJECT_UPDATE_EXAMPLE,
} from './project-type.example';

/** A project's upserts match on its unique code, which its create example leaves out. */
const batch = new BatchRoutes({
  create: recordWriteSchema(CUSTOM_RECORD_TYPE, true),
  update: recordWriteSchema(CUSTOM_RECORD_TYPE, false),
  createExample: PROJECT_CREATE_EXAMPLE,
  updateExample: PROJECT_UPDATE_EXAMPLE,
  idKind: 'record',
  matchOn: PROJECT_UNIQUE_FIELD,
  matchValue: 'PRJ-1042',
});

/** The type's slug, pre-filled with the one the operator's create-type example makes. */
const EntitySlug = () =>
  ApiParam({ name: 'entitySlug', example: PROJECT_SLUG, description: 'The slug of a custom object type' });

@ApiTags('Custom objects')
@Controller('v1/objects')
export class ObjectsController {
  constructor(private readonly objects: ObjectsService) {}

  @Get()
  @Endpoint({
    summary: 'List the custom object types (not paged)',
    category: 'read',
    scopes: ['objects:read'],
    response: ObjectTypeListDto,
  })
  types(@Caller() caller: AuthContext): Promise<ObjectTypeListDto> {
    return this.objects.types(caller);
  }

  @Get(':entitySlug/definitions')
  @EntitySlug()
  @Endpoint({
    summary: 'Field and relationship definitions of a custom type',
    category: 'read',
    scopes: ['objects:read'],
    response: DefinitionsDto,
  })
  definitions(@Caller() caller: AuthContext, @Param('entitySlug') slug: string): Promise<DefinitionsDto> {
    return this.objects.definitionsOf(caller, slug);
  }

  @Post(':entitySlug/values')
  @EntitySlug()
  @Endpoint({
    summary: 'Create a custom object record',
    category: 'write',
    scopes: ['objects:create'],
    response: EntityEnvelopeDto,
    errors: RECORD_WRITE_ERRORS,
    conditional: 'create',
  })
  @ApiJsonBody(recordWriteSchema(CUSTOM_RECORD_TYPE, true), PROJECT_CREATE_EXAMPLE)
  create(
    @Caller() caller: AuthContext,
    @Param('entitySlug') slug: string,
    @Body() body: unknown,
  ): Promise<EntityEnvelopeDto> {
    return this.objects.create(caller, slug, body);
  }

  @Post(':entitySlug/values/batch/create')
  @EntitySlug()
  @Endpoint({ summary: 'Create up to 100 custom object records', ...batch.endpoint('objects:create') })
  @batch.documentBatch('create')
  async createMany(
    @Caller() caller: AuthContext,
    @Param('entitySlug') slug: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BatchAnswer> {
    return batchStatus(response, await this.objects.createMany(caller, slug, body));
  }

  @Post(':entitySlug/values/batch/update')
  @EntitySlug()
  @Endpoint({ summary: 'Update up to 100 custom object records', ...batch.endpoint('objects:update') })
  @batch.documentBatch('update')
  async updateMany(
    @Caller() caller: AuthContext,
    @Param('entitySlug') slug: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BatchAnswer> {
    return batchStatus(response, await this.objects.updateMany(caller, slug, body));
  }

  @Post(':entitySlug/values/batch/upsert')
  @EntitySlug()
  @Endpoint({
    summary:
      'Create or update up to 100 custom object records, matched on externalId or on one of the type’s unique fields',
    ...batch.endpoint('objects:create', 'objects:update'),
  })
  @batch.documentBatch('upsert')
  async upsertMany(
    @Caller() caller: AuthContext,
    @Param('entitySlug') slug: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<BatchAnswer> {
    return batchStatus(response, await this.objects.upsertMany(caller, slug, body));
  }

  // Before `:id`, which would take `upsert` for an id.
  @Post(':entitySlug/values/upsert')
  @EntitySlug()
  @Endpoint({
    summary: 'Create or update a custom object record, matched on externalId or on one of the type’s unique fields',
    ...batch.endpoint('objects:create', 'objects:update'),
    response: UpsertAnswerDto,
    conditional: 'upsert',
  })
  @batch.documentUpsert()
  upsert(
    @Caller() caller: AuthContext,
    @Param('entitySlug') slug: string,
    @Body() body: unknown,
    @Preconditions() condition: WriteCondition | undefined,
  ): Promise<UpsertAnswerDto> {
    return this.objects.upsert(caller, slug, body, condition);
  }

  @Get(':entitySlug/values/:id')
  @EntitySlug()
  @Endpoint({
    summary: 'Retrieve a custom object record',
    category: 'read',
    scopes: ['objects:read'],
    response: EntityEnvelopeDto,
    conditional: 'read',
  })
  get(
    @Caller() caller: AuthContext,
    @Param('entitySlug') slug: string,
    @Param('id') id: string,
  ): Promise<EntityEnvelopeDto> {
    return this.objects.get(caller, slug, id);
  }

  @Post(':entitySlug/values/:id')
  @EntitySlug()
  @Endpoint({
    summary: 'Update a custom object record: only the fields and relationships given change',
    category: 'write',
    scopes: ['objects:update'],
    response: EntityEnvelopeDto,
    errors: RECORD_WRITE_ERRORS,
    conditional: 'update',
  })
  @ApiJsonBody(recordWriteSchema(CUSTOM_RECORD_TYPE, false), PROJECT_UPDATE_EXAMPLE)
  update(
    @Caller() caller: AuthContext,
    @Param('entitySlug') slug: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Preconditions() condition: WriteCondition | undefined,
  ): Promise<EntityEnvelopeDto> {
    return this.objects.update(caller, slug, id, body, condition);
  }

  @Get(':entitySlug')
  @EntitySlug()
  @Endpoint({
    summary: 'List the records of a custom type, newest first, with ?key[operator]=value filters',
    category: 'search',
    scopes: ['objects:read'],
  })
  @Paginated(EntityEnvelopeDto, { filters: PROJECT_FILTER_EXAMPLE })
  list(
    @Caller() caller: AuthContext,
    @Param('entitySlug') slug: string,
    @Page() page: PageRequest,
  ): Promise<PageResult<EntityEnvelopeDto>> {
    return this.objects.list(caller, slug, page);
  }
}

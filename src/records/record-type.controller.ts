import { Body, Controller, Get, Param, Post, Res, Type } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Caller } from '../common/auth/auth-context';
import type { AuthContext } from '../common/auth/auth-context';
import { Preconditions, type WriteCondition } from '../common/http/entity-tags';
import { Endpoint } from '../common/auth/auth.decorators';
import { ApiJsonBody } from '../common/openapi/api-json-body';
import type { Scope } from '../common/auth/scopes';
import { Page, Paginated } from '../common/pagination/pagination';
import type { PageRequest, PageResult } from '../common/pagination/pagination';
import { DefinitionsDto, toDefinitionsDto } from './definitions.dto';
import { EntityEnvelopeDto } from './entity-envelope';
import { RecordsService } from './records.service';
import { BatchRoutes, batchStatus, UpsertAnswerDto } from './record-batch.schema';
import { type BatchAnswer, RecordBatches } from './record-batches';
import { listFilterExample, recordWriteExample, recordWriteSchema } from './record-write.schema';
import { RECORD_WRITE_ERRORS } from './record-write';
import { idKindOf } from './record-ids';
import { SYSTEM_RECORD_TYPES } from './system-types';

export interface RecordRoutes {
  /** Object type slug, e.g. `note`. */
  slug: string;
  /** Path under `/v1`, e.g. `notes`. */
  path: string;
  /** Display name, plural then singular, e.g. ['Notes', 'note']. */
  names: [string, string];
  /** The write scopes; the read scope is the type's own (`readScope`). */
  scopes: { create: Scope; update: Scope };
}

/** "a note", "an account". */
function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

/**
 * The five routes every record type has (create, update, retrieve, list, definitions), built once
 * for all of them: the controllers of notes, tasks, accounts, contacts and opportunities are this.
 */
export function recordTypeController(routes: RecordRoutes): Type<unknown> {
  const [plural, singular] = routes.names;
  const systemType = SYSTEM_RECORD_TYPES.find((type) => type.slug === routes.slug)!;
  const batch = new BatchRoutes({
    create: recordWriteSchema(systemType, true),
    update: recordWriteSchema(systemType, false),
    createExample: recordWriteExample(systemType, true),
    updateExample: recordWriteExample(systemType, false),
    idKind: idKindOf(routes.slug),
    matchOn: 'externalId',
    matchValue: 'crm-1042',
  });

  @ApiTags(plural)
  @Controller(`v1/${routes.path}`)
  class RecordTypeController {
    constructor(
      private readonly records: RecordsService,
      private readonly batches: RecordBatches,
    ) {}

    @Get('definitions')
    @Endpoint({
      summary: `Field and relationship definitions of ${singular} records`,
      category: 'read',
      scopes: [systemType.readScope],
      response: DefinitionsDto,
    })
    async definitions(@Caller() caller: AuthContext): Promise<DefinitionsDto> {
      return toDefinitionsDto(await this.records.definitionsOf(caller, routes.slug));
    }

    @Post()
    @Endpoint({
      summary: `Create ${withArticle(singular)}`,
      category: 'write',
      scopes: [routes.scopes.create],
      response: EntityEnvelopeDto,
      errors: RECORD_WRITE_ERRORS,
      conditional: 'create',
    })
    @ApiJsonBody(recordWriteSchema(systemType, true), recordWriteExample(systemType, true))
    create(@Caller() caller: AuthContext, @Body() body: unknown): Promise<EntityEnvelopeDto> {
      return this.records.create(caller, routes.slug, body);
    }

    @Post('batch/create')
    @Endpoint({ summary: `Create up to 100 ${plural.toLowerCase()}`, ...batch.endpoint(routes.scopes.create) })
    @batch.documentBatch('create')
    async createMany(
      @Caller() caller: AuthContext,
      @Body() body: unknown,
      @Res({ passthrough: true }) response: Response,
    ): Promise<BatchAnswer> {
      return batchStatus(response, await this.batches.createMany(caller, routes.slug, body));
    }

    @Post('batch/update')
    @Endpoint({ summary: `Update up to 100 ${plural.toLowerCase()}`, ...batch.endpoint(routes.scopes.update) })
    @batch.documentBatch('update')
    async updateMany(
      @Caller() caller: AuthContext,
      @Body() body: unknown,
      @Res({ passthrough: true }) response: Response,
    ): Promise<BatchAnswer> {
      return batchStatus(response, await this.batches.updateMany(caller, routes.slug, body));
    }

    @Post('batch/upsert')
    @Endpoint({
      summary: `Create or update up to 100 ${plural.toLowerCase()}, matched on externalId or on one of the type’s unique fields`,
      ...batch.endpoint(routes.scopes.create, routes.scopes.update),
    })
    @batch.documentBatch('upsert')
    async upsertMany(
      @Caller() caller: AuthContext,
      @Body() body: unknown,
      @Res({ passthrough: true }) response: Response,
    ): Promise<BatchAnswer> {
      return batchStatus(response, await this.batches.upsertMany(caller, routes.slug, body));
    }

    // Before `:id`, which would take `upsert` for an id.
    @Post('upsert')
    @Endpoint({
      summary: `Create or update ${withArticle(singular)}, matched on externalId or on one of the type’s unique fields`,
      ...batch.endpoint(routes.scopes.create, routes.scopes.update),
      response: UpsertAnswerDto,
      conditional: 'upsert',
    })
    @batch.documentUpsert()
    upsert(
      @Caller() caller: AuthContext,
      @Body() body: unknown,
      @Preconditions() condition: WriteCondition | undefined,
    ): Promise<UpsertAnswerDto> {
      return this.batches.upsert(caller, routes.slug, body, condition);
    }

    @Post(':id')
    @Endpoint({
      summary: `Update ${withArticle(singular)}: only the fields and relationships given change`,
      category: 'write',
      scopes: [routes.scopes.update],
      response: EntityEnvelopeDto,
      errors: RECORD_WRITE_ERRORS,
      conditional: 'update',
    })
    @ApiJsonBody(recordWriteSchema(systemType, false), recordWriteExample(systemType, false))
    update(
      @Caller() caller: AuthContext,
      @Param('id') id: string,
      @Body() body: unknown,
      @Preconditions() condition: WriteCondition | undefined,
    ): Promise<EntityEnvelopeDto> {
      return this.records.update(caller, routes.slug, id, body, { condition });
    }

    @Get(':id')
    @Endpoint({
      summary: `Retrieve ${withArticle(singular)}`,
      category: 'read',
      scopes: [systemType.readScope],
      response: EntityEnvelopeDto,
      conditional: 'read',
    })
    get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<EntityEnvelopeDto> {
      return this.records.get(caller, routes.slug, id);
    }

    @Get()
    @Endpoint({
      summary: `List ${plural.toLowerCase()}, newest first, with ?key[operator]=value filters`,
      category: 'search',
      scopes: [systemType.readScope],
    })
    @Paginated(EntityEnvelopeDto, { filters: listFilterExample(systemType) })
    list(@Caller() caller: AuthContext, @Page() page: PageRequest): Promise<PageResult<EntityEnvelopeDto>> {
      return this.records.list(caller, routes.slug, page);
    }
  }

  Object.defineProperty(RecordTypeController, 'name', { value: `${plural.replace(/\s/g, '')}Controller` });
  return RecordTypeController;
}

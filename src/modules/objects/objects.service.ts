import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import type { WriteCondition } from '../../common/http/entity-tags';
import { ApiError } from '../../common/errors/api-error';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { DefinitionsDto, toDefinitionsDto } from '../../records/definitions.dto';
import { DefinitionsService } from '../../records/definitions.service';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { RecordsService } from '../../records/records.service';
import { BatchAnswer, RecordBatches } from '../../records/record-batches';
import type { WriteAnswer } from '../../records/record-writer';
import { ObjectTypeListDto } from './objects.dto';

/** `/v1/objects`: the records core, limited to the workspace's custom types. */
@Injectable()
export class ObjectsService {
  constructor(
    private readonly definitions: DefinitionsService,
    private readonly records: RecordsService,
    private readonly batches: RecordBatches,
  ) {}

  async types(caller: AuthContext): Promise<ObjectTypeListDto> {
    const types = [...(await this.definitions.typesOf(caller)).values()].filter((type) => type.custom);
    return { data: types.map((type) => ({ label: type.label, objectType: type.slug })) };
  }

  async definitionsOf(caller: AuthContext, slug: string): Promise<DefinitionsDto> {
    await this.requireCustomType(caller, slug);
    return toDefinitionsDto(await this.definitions.typeOf(caller, slug));
  }

  async create(caller: AuthContext, slug: string, body: unknown): Promise<EntityEnvelopeDto> {
    await this.requireCustomType(caller, slug);
    return this.records.create(caller, slug, body);
  }

  async update(
    caller: AuthContext,
    slug: string,
    id: string,
    body: unknown,
    condition?: WriteCondition,
  ): Promise<EntityEnvelopeDto> {
    await this.requireCustomType(caller, slug);
    return this.records.update(caller, slug, id, body, { condition });
  }

  async createMany(caller: AuthContext, slug: string, body: unknown): Promise<BatchAnswer> {
    await this.requireCustomType(caller, slug);
    return this.batches.createMany(caller, slug, body);
  }

  async updateMany(caller: AuthContext, slug: string, body: unknown): Promise<BatchAnswer> {
    await this.requireCustomType(caller, slug);
    return this.batches.updateMany(caller, slug, body);
  }

  async upsertMany(caller: AuthContext, slug: string, body: unknown): Promise<BatchAnswer> {
    await this.requireCustomType(caller, slug);
    return this.batches.upsertMany(caller, slug, body);
  }

  async upsert(caller: AuthContext, slug: string, body: unknown, condition?: WriteCondition): Promise<WriteAnswer> {
    await this.requireCustomType(caller, slug);
    return this.batches.upsert(caller, slug, body, condition);
  }

  async get(caller: AuthContext, slug: string, id: string): Promise<EntityEnvelopeDto> {
    await this.requireCustomType(caller, slug);
    return this.records.get(caller, slug, id);
  }

  async list(caller: AuthContext, slug: string, page: PageRequest): Promise<PageResult<EntityEnvelopeDto>> {
    await this.requireCustomType(caller, slug);
    return this.records.list(caller, slug, page);
  }

  /** System types have their own routes: under `/v1/objects` their slugs are unknown (404). */
  private async requireCustomType(caller: AuthContext, slug: string): Promise<void> {
    const type = (await this.definitions.typesOf(caller)).get(slug);
    if (!type?.custom) throw ApiError.notFound('Object type');
  }
}

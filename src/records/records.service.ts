import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth-context';
import { ApiError } from '../common/errors/api-error';
import type { WriteCondition } from '../common/http/entity-tags';
import type { PageRequest, PageResult } from '../common/pagination/pagination';
import { DefinitionsService, WorkspaceRef } from './definitions.service';
import type { EntityEnvelopeDto } from './entity-envelope';
import { otherEnd } from './linked-ends';
import type { ObjectTypeDefinition, RelationshipDefinition } from './object-type';
import { RecordEnvelopes } from './record-envelopes';
import { isRecordIdOf, newRecordId } from './record-ids';
import { RecordLinksRepository } from './record-links.repository';
import { readRecordWrite } from './record-write';
import { RecordWriter } from './record-writer';
import type { RecordRestriction } from './record-pages';
import { RecordsRepository } from './records.repository';

/**
 * Create, update, retrieve and list for every record type, driven by its definitions: one record
 * per row of RecordsRepository and one link per row of RecordLinksRepository, read from both ends.
 * Every write is a batch of one of the one write path (RecordWriter), which records its change
 * events in its transaction, including the change a link makes to its other end.
 */
@Injectable()
export class RecordsService {
  constructor(
    private readonly definitions: DefinitionsService,
    private readonly records: RecordsRepository,
    private readonly links: RecordLinksRepository,
    private readonly writer: RecordWriter,
    private readonly envelopes: RecordEnvelopes,
  ) {}

  definitionsOf(caller: AuthContext, slug: string): Promise<ObjectTypeDefinition> {
    return this.definitions.typeOf(caller, slug);
  }

  async create(caller: AuthContext, slug: string, body: unknown): Promise<EntityEnvelopeDto> {
    const type = await this.definitions.typeOf(caller, slug);
    const write = readRecordWrite(type, body, true);
    return (await this.writer.writeOne(caller, type, { index: 0, id: newRecordId(slug), write, creates: true })).data;
  }

  /**
   * `beforeWrite` runs once the record is found and locked, before anything is checked against
   * other rows or written: a caller's own permission check (meetings) holds until the commit. An
   * update that changes nothing writes nothing: `updatedAt` stays, and no event is recorded.
   * `condition` (If-Match…) is compared under the record's lock, after `beforeWrite`.
   */
  async update(
    caller: AuthContext,
    slug: string,
    id: string,
    body: unknown,
    { beforeWrite, condition }: { beforeWrite?: () => Promise<void>; condition?: WriteCondition } = {},
  ): Promise<EntityEnvelopeDto> {
    const type = await this.definitions.typeOf(caller, slug);
    if (!isRecordIdOf(slug, id)) throw ApiError.notFound(type.label);
    const write = readRecordWrite(type, body, false);
    const planned = { index: 0, id, write, creates: false, condition };
    return (await this.writer.writeOne(caller, type, planned, { beforeWrite })).data;
  }

  async get(caller: AuthContext, slug: string, id: string): Promise<EntityEnvelopeDto> {
    const type = await this.definitions.typeOf(caller, slug);
    if (!isRecordIdOf(slug, id)) throw ApiError.notFound(type.label);
    return this.retrieve(caller.workspaceId, type, id);
  }

  /** The records `ids` of the type, in that order; ids of no such record are left out. */
  async getMany(caller: WorkspaceRef, slug: string, ids: string[]): Promise<EntityEnvelopeDto[]> {
    if (ids.length === 0) return [];
    const type = await this.definitions.typeOf(caller, slug);
    const position = new Map(ids.map((id, index) => [id, index]));
    const rows = await this.records.findMany(caller.workspaceId, type, ids);
    return this.envelopes.of(
      type,
      rows.sort((a, b) => position.get(a.id)! - position.get(b.id)!),
    );
  }

  /**
   * Newest first, count and page in one statement whatever the page size. `restrict` narrows the
   * list (meeting privacy: see MeetingsService.list).
   */
  async list(
    caller: AuthContext,
    slug: string,
    page: PageRequest,
    restrict?: RecordRestriction,
  ): Promise<PageResult<EntityEnvelopeDto>> {
    const type = await this.definitions.typeOf(caller, slug);
    const { rows, total, next } = await this.records.page(caller.workspaceId, type, page, restrict);
    return { data: this.envelopes.of(type, rows), totalCount: total, next };
  }

  /**
   * Sets a read-only relationship that the system maintains (meeting `$contact`, …): the caller's
   * write rules do not apply, the ids are trusted to be of the right type and workspace. The record
   * changes as by an update (in the ambient transaction, which there must be).
   */
  async setSystemLinks(
    caller: AuthContext,
    slug: string,
    recordId: string,
    definition: RelationshipDefinition,
    ids: string[],
  ): Promise<void> {
    const type = await this.definitions.typeOf(caller, slug);
    const write = { fields: new Map(), links: [{ definition, set: ids, add: [], remove: [] }], externalId: undefined };
    await this.writer.writeOne(caller, type, { index: 0, id: recordId, write, creates: false }, { trusted: true });
  }

  /** The ids that the records `ids` hold under `relationship` (e.g. the accounts of these contacts), once each. */
  idsLinkedBy(relationship: RelationshipDefinition, ids: string[]): Promise<string[]> {
    return this.links.linkedToAny(ids, relationship.binding);
  }

  /** The records whose `relationship` holds any of `ids` (e.g. the meeting whose `$transcript` is this file). */
  idsLinkingTo(relationship: RelationshipDefinition, ids: string[]): Promise<string[]> {
    return this.links.linkedToAny(ids, otherEnd(relationship.binding));
  }

  /** Records of the type whose multi-valued text field holds any of `values`, with that field's values. */
  findHoldingAny(
    caller: AuthContext,
    slug: string,
    fieldKey: string,
    values: string[],
  ): Promise<{ id: string; values: string[] }[]> {
    return this.records.findHoldingAny(caller.workspaceId, slug, fieldKey, values);
  }

  /** For each host key (url-hosts.ts), the oldest record of the type with a URL on that host in `fieldKey`. */
  oldestByUrlHost(caller: AuthContext, slug: string, fieldKey: string, hosts: string[]): Promise<Map<string, string>> {
    return this.records.oldestByUrlHost(caller.workspaceId, slug, fieldKey, hosts);
  }

  /** Until the transaction ends, creations of these types in the caller's workspace take turns (see RecordsRepository). */
  lockCreation(caller: AuthContext, slugs: string[]): Promise<void> {
    return this.records.lockCreation(caller.workspaceId, slugs);
  }

  private async retrieve(workspaceId: string, type: ObjectTypeDefinition, id: string): Promise<EntityEnvelopeDto> {
    const row = await this.records.find(workspaceId, type, id);
    if (!row) throw ApiError.notFound(type.label);
    return this.envelopes.of(type, [row])[0];
  }
}

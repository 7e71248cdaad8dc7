import { Injectable } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import type { AuthContext } from '../common/auth/auth-context';
import { ApiError } from '../common/errors/api-error';
import type { PageRequest, PageResult } from '../common/pagination/pagination';
import { AppConfig } from '../config/app-config';
import { Transactions } from '../database/transactions';
import { Change, ChangeEvents, EventChanges } from './change-events';
import { DefinitionsService, WorkspaceRef } from './definitions.service';
import { EntityEnvelopeDto, StoredEntity, toEntityEnvelope } from './entity-envelope';
import { LinkTargets } from './link-targets';
import type { LinkBinding, ObjectTypeDefinition, RelationshipDefinition } from './object-type';
import { isRecordIdOf, newRecordId } from './record-ids';
import { LinkEnd, RecordLinksRepository } from './record-links.repository';
import { LinkChange, linkCountError, probesOf, readRecordWrite } from './record-write';
import { RecordRestriction, RecordRow, RecordsRepository } from './records.repository';

/** The fields document to store: every set value (`null` clears, so it is left out). */
export function storedFields(values: ReadonlyMap<string, unknown>): Record<string, unknown> {
  return Object.fromEntries([...values].filter(([, value]) => value !== null));
}

/** The keys whose value differs between two fields documents (a key set in one only differs). */
export function changedFieldKeys(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter(
    (key) =>
      !isDeepStrictEqual(
        Object.hasOwn(before, key) ? before[key] : null,
        Object.hasOwn(after, key) ? after[key] : null,
      ),
  );
}

/** Links as a statement that makes them all at once returns them: by the other end's id (RecordsRepository.insert). */
function sortLinks(links: LinkEnd[]): LinkEnd[] {
  return [...links].sort((a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
}

function checkLinkCount(definition: RelationshipDefinition, linkCount: number): void {
  const error = linkCountError(definition, linkCount);
  if (error) throw error;
}

/** Types whose records are no entities of the change feed: a link to them is no change of theirs. */
const UNRECORDED_TYPES = new Set(['member', 'file']);

/** The same link read from its other end. */
function otherEnd({ link, side }: LinkBinding): LinkBinding {
  return { link, side: side === 'source' ? 'target' : 'source' };
}

/**
 * Create, update, retrieve and list for every record type, driven by its definitions: one record
 * per row of RecordsRepository and one link per row of RecordLinksRepository, read from both ends.
 * The rules live here; the SQL lives in those repositories. Every change is recorded as a change
 * event (ChangeEvents) in its transaction, including the change a link makes to its other end,
 * whose `updatedAt` moves with it.
 */
@Injectable()
export class RecordsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly definitions: DefinitionsService,
    private readonly records: RecordsRepository,
    private readonly links: RecordLinksRepository,
    private readonly targets: LinkTargets,
    private readonly events: ChangeEvents,
    private readonly config: AppConfig,
  ) {}

  definitionsOf(caller: AuthContext, slug: string): Promise<ObjectTypeDefinition> {
    return this.definitions.typeOf(caller, slug);
  }

  /**
   * A record without relationships from the caller and without a unique value to check is made,
   * with its event, in one statement; otherwise its checks, its links, the record and the events
   * share a transaction.
   */
  async create(caller: AuthContext, slug: string, body: unknown): Promise<EntityEnvelopeDto> {
    const type = await this.definitions.typeOf(caller, slug);
    const write = readRecordWrite(type, body, true);
    // The caller's own member: the key lookup has just found it, there is nothing to verify.
    const callerLinks: LinkEnd[] = type.relationships
      .filter(
        (definition) => definition.defaultsToCaller && !write.links.some((change) => change.definition === definition),
      )
      .map(({ binding }) => [binding.side, binding.link, caller.memberId]);
    const record = {
      id: newRecordId(slug),
      workspaceId: caller.workspaceId,
      slug,
      fields: storedFields(write.fields),
      externalId: write.externalId ?? null,
      createdAt: new Date(),
    };
    if (write.links.length === 0 && !this.hasUniqueValues(type, write.fields) && !this.transactions.active) {
      // The record as this statement makes it (a read returns its links sorted by id) is both the
      // event's data and the answer.
      const made: RecordRow = {
        ...record,
        external_id: record.externalId,
        created_at: record.createdAt,
        updated_at: null,
        links: sortLinks(callerLinks),
      };
      const [created] = this.toEnvelopes(type, [made]);
      await this.records.insertRecorded(record, callerLinks, [
        ChangeEvents.eventOf(this.change(caller, slug, record.id, 'created', created)),
      ]);
      return created;
    }
    return this.transactions.run(async () => {
      await this.verifyTargets(caller.workspaceId, write.links);
      await this.checkUnique(caller.workspaceId, type, record.id, write.fields);
      const links = [...callerLinks, ...(await this.linksOfNewRecord(caller, type, write.links))];
      const created = this.toEnvelopes(type, [await this.records.insert(record, links)])[0];
      this.events.record(this.change(caller, slug, record.id, 'created', created));
      // Once the links exist: the other ends' events show them.
      for (const change of write.links)
        await this.touchOtherEnds(caller, change.definition, [...new Set([...(change.set ?? []), ...change.add])]);
      return created;
    });
  }

  /**
   * `beforeWrite` runs once the record is found and locked, before anything is checked against
   * other rows or written: a caller's own permission check (meetings) holds until the commit. An
   * update that changes nothing writes nothing: `updatedAt` stays, and no event is recorded.
   */
  async update(
    caller: AuthContext,
    slug: string,
    id: string,
    body: unknown,
    beforeWrite?: () => Promise<void>,
  ): Promise<EntityEnvelopeDto> {
    const type = await this.definitions.typeOf(caller, slug);
    if (!isRecordIdOf(slug, id)) throw ApiError.notFound(type.label);
    const write = readRecordWrite(type, body, false);
    if (!beforeWrite && write.links.length === 0 && !this.hasUniqueValues(type, write.fields)) {
      // Nothing to check against other rows: set and clear the fields in one statement.
      return this.transactions.run(async () => {
        const patched = await this.records.patch(caller.workspaceId, type, id, {
          set: JSON.stringify(storedFields(write.fields)),
          cleared: [...write.fields].filter(([, value]) => value === null).map(([key]) => key),
          externalId: write.externalId,
          updatedAt: new Date(),
        });
        if (!patched) throw ApiError.notFound(type.label);
        const updated = this.toEnvelopes(type, [patched.row])[0];
        if (patched.changed) {
          const changes = { fields: changedFieldKeys(patched.previousFields, patched.row.fields), relationships: [] };
          this.events.record(this.change(caller, slug, id, 'updated', updated, changes));
        }
        return updated;
      });
    }
    return this.transactions.run(async () => {
      const current = await this.records.lockFields(caller.workspaceId, slug, id);
      if (!current) throw ApiError.notFound(type.label);
      await beforeWrite?.();
      await this.verifyTargets(caller.workspaceId, write.links);
      await this.checkUnique(caller.workspaceId, type, id, write.fields);
      const fields = storedFields(new Map([...Object.entries(current.fields), ...write.fields]));
      const changes = {
        fields: changedFieldKeys(current.fields, fields),
        relationships: await this.applyLinks(caller, slug, id, write.links),
      };
      const externalIdChanged = write.externalId !== undefined && write.externalId !== current.externalId;
      if (changes.fields.length === 0 && changes.relationships.length === 0 && !externalIdChanged) {
        return this.retrieve(caller.workspaceId, type, id);
      }
      await this.records.update(id, JSON.stringify(fields), write.externalId, new Date());
      const updated = await this.retrieve(caller.workspaceId, type, id);
      this.events.record(this.change(caller, slug, id, 'updated', updated, changes));
      return updated;
    });
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
    return this.toEnvelopes(
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
    return { data: this.toEnvelopes(type, rows), totalCount: total, next };
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
    const changed = await this.applyLinks(caller, slug, recordId, [{ definition, set: ids, add: [], remove: [] }]);
    if (changed.length > 0) await this.touch(caller, slug, [recordId], changed);
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

  change(
    caller: AuthContext,
    slug: string,
    id: string,
    action: 'created' | 'updated',
    data: EntityEnvelopeDto,
    changes?: EventChanges,
  ): Change {
    return { workspaceId: caller.workspaceId, entityType: slug, entityId: id, action, data, changes };
  }

  /**
   * The records `ids` of type `slug` changed through their relationships `keys` only: their
   * `updatedAt` moves (unless this transaction made them) and each gets its `updated` event.
   */
  private async touch(caller: AuthContext, slug: string, ids: string[], keys: string[]): Promise<void> {
    const type = await this.definitions.typeOf(caller, slug);
    const madeHere = ids.filter((id) => this.events.createdHere(slug, id));
    const rows = await this.records.touch(caller.workspaceId, type, ids, { updatedAt: new Date(), except: madeHere });
    for (const record of this.toEnvelopes(type, rows)) {
      this.events.record(this.change(caller, slug, record.id, 'updated', record, { fields: [], relationships: keys }));
    }
  }

  /**
   * The records at the other end of links that `definition` (a relationship of the record that
   * changed) added or removed: each changed through the relationship that reads the link from its
   * end, if its type has one and is an entity of the change feed.
   */
  async touchOtherEnds(caller: AuthContext, definition: RelationshipDefinition, ids: string[]): Promise<void> {
    if (ids.length === 0 || UNRECORDED_TYPES.has(definition.objectType)) return;
    const otherType = await this.definitions.typeOf(caller, definition.objectType);
    const { link, side } = otherEnd(definition.binding);
    const inverse = otherType.relationships.find(
      (relationship) => relationship.binding.link === link && relationship.binding.side === side,
    );
    if (inverse) await this.touch(caller, otherType.slug, ids, [inverse.key]);
  }

  private async retrieve(workspaceId: string, type: ObjectTypeDefinition, id: string): Promise<EntityEnvelopeDto> {
    const row = await this.records.find(workspaceId, type, id);
    if (!row) throw ApiError.notFound(type.label);
    return this.toEnvelopes(type, [row])[0];
  }

  toEnvelopes(type: ObjectTypeDefinition, rows: RecordRow[]): EntityEnvelopeDto[] {
    const keyOf = new Map(type.relationships.map((r) => [`${r.binding.side}|${r.binding.link}`, r.key]));
    return rows.map((row) => {
      const links = new Map<string, string[]>();
      for (const [side, link, other] of row.links) {
        const key = keyOf.get(`${side}|${link}`)!;
        const ids = links.get(key);
        if (ids) ids.push(other);
        else links.set(key, [other]);
      }
      const entity: StoredEntity = {
        id: row.id,
        // Rows that come through json_agg carry timestamps as text.
        createdAt: new Date(row.created_at),
        updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
        externalId: row.external_id,
        fields: row.fields,
        links,
      };
      return toEntityEnvelope(type, entity, this.config.publicAppUrl);
    });
  }

  /** Whether the write sets a value of a `unique` field, which must be checked against other records. */
  private hasUniqueValues(type: ObjectTypeDefinition, fields: ReadonlyMap<string, unknown>): boolean {
    return type.fields.some((field) => field.typeConfiguration.unique && fields.get(field.key) != null);
  }

  /**
   * The links a new record gets from the caller's relationship changes, checked as an update's are
   * (applyLinks); records that may link to one record only through a relationship move to it.
   */
  private async linksOfNewRecord(
    caller: AuthContext,
    type: ObjectTypeDefinition,
    changes: LinkChange[],
  ): Promise<LinkEnd[]> {
    const links: LinkEnd[] = [];
    for (const change of changes) {
      const { binding } = change.definition;
      const ids = [...new Set([...(change.set ?? []), ...change.add])];
      checkLinkCount(change.definition, ids.length);
      if (ids.length === 0) continue;
      if (binding.side === 'target' && change.definition.inverseOfHasOne)
        await this.moveHere(caller, type.slug, change.definition, ids);
      for (const other of ids) links.push([binding.side, binding.link, other]);
    }
    return links;
  }

  /**
   * Unlinks the records `ids`, about to be linked through `definition` (a writable inverse of a
   * HAS_ONE), from the records of type `slug` they were linked to: those change too. Locking the
   * moved records makes concurrent moves of one record take turns, as its own updates do, so that
   * it never ends up linked twice.
   */
  async moveHere(caller: AuthContext, slug: string, definition: RelationshipDefinition, ids: string[]): Promise<void> {
    await this.records.lock(ids);
    const previous = await this.links.unlinkSources(ids, definition.binding.link);
    if (previous.length > 0) await this.touch(caller, slug, previous, [definition.key]);
  }

  /**
   * `unique` fields (docs/api.md §7: 409 `duplicate_value`). A multi-valued field is unique per
   * element; an object (ADDRESS, FULL_NAME) by equality. Values are probed in sorted order, so that
   * two writes of the same values take the value locks in one order.
   */
  private async checkUnique(
    workspaceId: string,
    type: ObjectTypeDefinition,
    id: string,
    fields: ReadonlyMap<string, unknown>,
  ): Promise<void> {
    for (const field of type.fields) {
      const value = fields.get(field.key);
      if (!field.typeConfiguration.unique || value === null || value === undefined) continue;
      const probes = probesOf(value).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      let taken = false;
      for (const probe of probes) {
        taken = (await this.records.isValueTaken(workspaceId, type.slug, field.key, probe, id)) || taken;
      }
      if (taken) {
        const param = `fields.${field.key}`;
        throw new ApiError(409, 'duplicate_value', `Another ${type.slug} already has this ${field.key}`, param);
      }
    }
  }

  private async verifyTargets(workspaceId: string, changes: LinkChange[]): Promise<void> {
    for (const change of changes) {
      const { objectType, key } = change.definition;
      await this.targets.verify(
        workspaceId,
        objectType,
        [...(change.set ?? []), ...change.add],
        `relationships.${key}`,
      );
    }
  }

  /** Applies the relationship changes of the record `recordId`; answers the keys whose links changed. */
  private async applyLinks(
    caller: AuthContext,
    slug: string,
    recordId: string,
    changes: LinkChange[],
  ): Promise<string[]> {
    const changed: string[] = [];
    for (const change of changes) {
      const { binding } = change.definition;
      const current = await this.links.linkedTo(recordId, binding);
      // Sets: a HAS_MANY relationship may hold many links, and comparing arrays would be quadratic.
      const removing = new Set(change.remove);
      const next = new Set(change.set ?? [...current.filter((id) => !removing.has(id)), ...change.add]);
      checkLinkCount(change.definition, next.size);
      const linked = new Set(current);
      const removed = current.filter((id) => !next.has(id));
      const added = [...next].filter((id) => !linked.has(id));
      if (removed.length === 0 && added.length === 0) continue;
      changed.push(change.definition.key);
      if (removed.length > 0) await this.links.unlink(recordId, binding, removed);
      if (added.length > 0) {
        if (binding.side === 'target' && change.definition.inverseOfHasOne)
          await this.moveHere(caller, slug, change.definition, added);
        await this.links.link(caller.workspaceId, recordId, binding, added);
      }
      // Once the links are written: the other ends' events show them.
      await this.touchOtherEnds(caller, change.definition, [...removed, ...added]);
    }
    return changed;
  }
}

import { Injectable } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import type { AuthContext } from '../common/auth/auth-context';
import { ApiError, type ErrorBody } from '../common/errors/api-error';
import type { ErrorStatus } from '../common/errors/error-codes';
import { Transactions } from '../database/transactions';
import { ChangeEvents } from './change-events';
import { DefinitionsService } from './definitions.service';
import type { EntityEnvelopeDto } from './entity-envelope';
import { LinkTargets, relationshipEntityMissing } from './link-targets';
import type { ObjectTypeDefinition, RelationshipDefinition } from './object-type';
import { isRecordIdOf, newRecordId } from './record-ids';
import { RecordLink, RecordLinksRepository } from './record-links.repository';
import { isPlainObject, linkCountError, probesOf, readRecordWrite, type RecordWrite } from './record-write';
import {
  externalIdLockKey,
  fieldsTooLarge,
  MAX_RECORD_FIELDS_BYTES,
  NewRecord,
  RecordRow,
  RecordsRepository,
  uniqueValueLockKey,
} from './records.repository';
import { changedFieldKeys, RecordsService, storedFields } from './records.service';

/** The most inputs one batch call takes (docs/api.md, "Batch writes"). */
export const MAX_BATCH_INPUTS = 100;

export type WriteOutcome = 'created' | 'updated' | 'unchanged';

/** One input's answer in a batch: its record, or its error's members. */
export type BatchItemResult =
  { status: 200; outcome: WriteOutcome; data: EntityEnvelopeDto } | { status: ErrorStatus; error: ErrorBody['error'] };

export interface BatchAnswer {
  object: 'batch';
  results: BatchItemResult[];
}

export interface UpsertAnswer {
  outcome: WriteOutcome;
  data: EntityEnvelopeDto;
}

type BatchKind = 'create' | 'update' | 'upsert';

const BATCH_MEMBERS: Record<BatchKind, Set<string>> = {
  create: new Set(['inputs', 'atomic']),
  update: new Set(['inputs', 'atomic']),
  upsert: new Set(['matchOn', 'inputs', 'atomic']),
};

/** What a batch writes for one input once it is read: a new record, or a change to one. */
interface PlannedCreate {
  index: number;
  id: string;
  write: RecordWrite;
}
interface PlannedUpdate {
  index: number;
  id: string;
  write: RecordWrite;
}

/** How a batch's inputs are matched to records by `matchOn` (an upsert). */
interface Matcher {
  /** `externalId` or `fields.<key>`: where an input carries its match value. */
  param: string;
  /** The input's match value, or undefined when it carries none. */
  valueOf(write: RecordWrite): unknown;
  /** The lock keys of a match value: a value's writes take turns under them. */
  lockKeys(workspaceId: string, value: unknown): string[];
  /** For each input's value, the ids of the records that hold it, in one query. */
  holders(workspaceId: string, values: unknown[]): Promise<string[][]>;
}

/** An error as an input's: its param prefixed with the input's place (`inputs[3].fields.$email`). */
function atInput(index: number, error: ApiError): ApiError {
  const place = `inputs[${index}]`;
  return new ApiError(
    error.status,
    error.code,
    error.message,
    error.param === undefined ? place : `${place}.${error.param}`,
    error.headers,
  );
}

/** Whether a stored value holds a probe as isValueTaken decides it: an element of an array, else equality. */
function holds(stored: unknown, probe: unknown): boolean {
  if (Array.isArray(probe) && Array.isArray(stored))
    return stored.some((element) => isDeepStrictEqual(element, probe[0]));
  return isDeepStrictEqual(stored, probe);
}

/** An input's failure, kept by place; the first (lowest place) one is an atomic batch's answer. */
class Failures {
  private readonly byIndex = new Map<number, ApiError>();

  add(index: number, error: ApiError): void {
    if (!this.byIndex.has(index)) this.byIndex.set(index, atInput(index, error));
  }

  has(index: number): boolean {
    return this.byIndex.has(index);
  }

  get(index: number): ApiError | undefined {
    return this.byIndex.get(index);
  }

  /** Runs `read` and keeps what it throws as the input's failure: the answer, else undefined. */
  catch<T>(index: number, read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.add(index, error as ApiError);
      return undefined;
    }
  }

  first(): ApiError | undefined {
    const first = Math.min(...this.byIndex.keys());
    return this.byIndex.get(first);
  }

  get size(): number {
    return this.byIndex.size;
  }
}

/**
 * The bytes of a value as PostgreSQL writes jsonb as text (`fields::text`, which the records table
 * bounds): JSON with a space after each `:` and `,`.
 */
function jsonbTextBytes(value: unknown): number {
  if (Array.isArray(value))
    return (
      2 + value.reduce((sum: number, element) => sum + jsonbTextBytes(element), 0) + Math.max(0, value.length - 1) * 2
    );
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const members = entries.reduce(
      (sum, [key, member]) => sum + Buffer.byteLength(JSON.stringify(key)) + 2 + jsonbTextBytes(member),
      0,
    );
    return 2 + members + Math.max(0, entries.length - 1) * 2;
  }
  return Buffer.byteLength(JSON.stringify(value));
}

/** A record's fields once an update's are set on them (null clears). */
function mergedFields(row: RecordRow, write: RecordWrite): Record<string, unknown> {
  return storedFields(new Map([...Object.entries(row.fields), ...write.fields]));
}

/** The links of `row` through `definition`'s binding: the other ends' ids, in link order. */
function linkedThrough(row: RecordRow, definition: RelationshipDefinition): string[] {
  const { side, link } = definition.binding;
  return row.links.filter(([end, name]) => end === side && name === link).map(([, , other]) => other);
}

/**
 * Batch creates, updates and upserts of one record type (docs/api.md, "Batch writes"): each input
 * is read by the single write's own reader (readRecordWrite), then every input's checks against
 * other rows run together — one query per related type for link targets, one per `unique` field,
 * one for externalIds — and the writes are set-based: one statement makes every new record,
 * one changes every updated one, one removes and one makes every link, one per relationship moves
 * the other ends' `updatedAt`, and the events are appended in one statement before the commit.
 * So a batch costs a bounded number of statements however many inputs it has.
 *
 * Every failure an input can meet is found before anything is written, so an atomic batch writes
 * nothing when one fails, and a per-item batch writes exactly the inputs that passed, in the same
 * transaction as their events.
 */
@Injectable()
export class RecordBatches {
  constructor(
    private readonly transactions: Transactions,
    private readonly definitions: DefinitionsService,
    private readonly records: RecordsRepository,
    private readonly links: RecordLinksRepository,
    private readonly targets: LinkTargets,
    private readonly events: ChangeEvents,
    private readonly service: RecordsService,
  ) {}

  async createMany(caller: AuthContext, slug: string, body: unknown): Promise<BatchAnswer> {
    const type = await this.definitions.typeOf(caller, slug);
    const { inputs, atomic } = readBatch(body, 'create');
    const failures = new Failures();
    const creates: PlannedCreate[] = [];
    inputs.forEach((input, index) => {
      const write = failures.catch(index, () => readRecordWrite(type, input, true));
      if (write) creates.push({ index, id: newRecordId(slug), write });
    });
    return this.answer(inputs.length, failures, atomic, () => this.write(caller, type, creates, [], failures, atomic));
  }

  async updateMany(caller: AuthContext, slug: string, body: unknown): Promise<BatchAnswer> {
    const type = await this.definitions.typeOf(caller, slug);
    const { inputs, atomic } = readBatch(body, 'update');
    const failures = new Failures();
    const updates: PlannedUpdate[] = [];
    const seen = new Map<string, number>();
    inputs.forEach((input, index) => {
      const planned = failures.catch(index, () => {
        if (!isPlainObject(input)) throw new ApiError(400, 'invalid_json', 'Each input must be a JSON object');
        const { id, ...change } = input;
        if (id === undefined || id === null) throw ApiError.missing('id');
        if (typeof id !== 'string') throw ApiError.invalidType('id', 'a string');
        if (!isRecordIdOf(slug, id)) throw ApiError.notFound(type.label);
        const write = readRecordWrite(type, change, false);
        if (seen.has(id))
          throw ApiError.invalidValue('id', `inputs[${seen.get(id)}] of this batch already updates ${id}`);
        seen.set(id, index);
        return { index, id, write };
      });
      if (planned) updates.push(planned);
    });
    return this.answer(inputs.length, failures, atomic, () => this.write(caller, type, [], updates, failures, atomic));
  }

  async upsertMany(caller: AuthContext, slug: string, body: unknown): Promise<BatchAnswer> {
    const type = await this.definitions.typeOf(caller, slug);
    const { inputs, atomic, matchOn } = readBatch(body, 'upsert');
    const matcher = this.matcherOf(type, matchOn);
    const failures = new Failures();
    return this.answer(inputs.length, failures, atomic, () =>
      this.upsertInputs(caller, type, matcher, inputs, failures, atomic),
    );
  }

  /** One upsert (`POST …/upsert`): as a batch of one atomic input, its error unprefixed. */
  async upsert(caller: AuthContext, slug: string, body: unknown): Promise<UpsertAnswer> {
    const type = await this.definitions.typeOf(caller, slug);
    if (!isPlainObject(body)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
    const { matchOn, ...input } = body;
    const matcher = this.matcherOf(type, matchOn);
    const failures = new Failures();
    const results = await this.transactions.run(() =>
      this.upsertInputs(caller, type, matcher, [input], failures, false),
    );
    const failure = failures.get(0);
    if (failure) throw unprefixed(failure);
    return results.get(0)!;
  }

  /** The answer of a batch: its results in input order (an atomic one's failure is thrown by `write`). */
  private async answer(
    count: number,
    failures: Failures,
    atomic: boolean,
    work: () => Promise<Map<number, UpsertAnswer>>,
  ): Promise<BatchAnswer> {
    if (atomic && failures.size > 0) throw failures.first()!;
    const written = await this.transactions.run(work);
    const results: BatchItemResult[] = [];
    for (let index = 0; index < count; index++) {
      const failure = failures.get(index);
      if (failure) results.push({ status: failure.status, error: failure.toBody().error });
      else results.push({ status: 200, ...written.get(index)! });
    }
    return { object: 'batch', results };
  }

  /**
   * Finds each input's record by its match value, under the value's lock (so that concurrent
   * upserts of one value take turns, and the second finds what the first made), then writes:
   * inputs that matched no record are created, those that matched one are updated with the members
   * they give, and those that matched several are 409 `ambiguous_match`.
   */
  private async upsertInputs(
    caller: AuthContext,
    type: ObjectTypeDefinition,
    matcher: Matcher,
    inputs: unknown[],
    failures: Failures,
    atomic: boolean,
  ): Promise<Map<number, UpsertAnswer>> {
    const probed: { index: number; input: Record<string, unknown>; value: unknown }[] = [];
    const firstWithKey = new Map<string, number>();
    // Every value lock the writes will take, taken before the match: in one order, never one after another.
    const lockKeys: string[] = [];
    inputs.forEach((input, index) => {
      const read = failures.catch(index, () => {
        if (!isPlainObject(input)) throw new ApiError(400, 'invalid_json', 'Each input must be a JSON object');
        // The members the match needs, read as an update reads them: the same errors, whichever way it goes.
        const { fields, externalId } = readRecordWrite(
          type,
          { fields: input.fields, externalId: input.externalId },
          false,
        );
        const value = matcher.valueOf({ fields, links: [], externalId });
        if (value === undefined) throw ApiError.missing(matcher.param);
        for (const key of matcher.lockKeys(caller.workspaceId, value)) {
          const earlier = firstWithKey.get(key);
          if (earlier !== undefined)
            throw ApiError.invalidValue(
              matcher.param,
              `inputs[${earlier}] of this batch has the same ${matcher.param}`,
            );
        }
        for (const key of matcher.lockKeys(caller.workspaceId, value)) firstWithKey.set(key, index);
        lockKeys.push(...this.lockKeysOf(caller.workspaceId, type, { fields, links: [], externalId }));
        return { index, input, value };
      });
      if (read) probed.push(read);
    });
    if (atomic && failures.size > 0) throw failures.first()!;
    await this.records.lockValues(lockKeys);
    const holders = await matcher.holders(
      caller.workspaceId,
      probed.map(({ value }) => value),
    );
    const creates: PlannedCreate[] = [];
    const updates: PlannedUpdate[] = [];
    probed.forEach(({ index, input }, position) => {
      const found = holders[position];
      failures.catch(index, () => {
        if (found.length > 1) {
          throw new ApiError(
            409,
            'ambiguous_match',
            `${found.length} records of this type hold this ${matcher.param}`,
            matcher.param,
          );
        }
        if (found.length === 0)
          creates.push({ index, id: newRecordId(type.slug), write: readRecordWrite(type, input, true) });
        else updates.push({ index, id: found[0], write: readRecordWrite(type, input, false, true) });
      });
    });
    return this.write(caller, type, creates, updates, failures, atomic, matcher);
  }

  private matcherOf(type: ObjectTypeDefinition, matchOn: unknown): Matcher {
    if (matchOn === undefined || matchOn === null) throw ApiError.missing('matchOn');
    if (typeof matchOn !== 'string') throw ApiError.invalidType('matchOn', 'a string');
    if (matchOn === 'externalId') {
      return {
        param: 'externalId',
        valueOf: (write) => write.externalId ?? undefined,
        lockKeys: (workspaceId, value) => [externalIdLockKey(workspaceId, type.slug, value as string)],
        holders: async (workspaceId, values) => {
          const byExternalId = await this.records.holdersOfExternalIds(workspaceId, type.slug, values as string[]);
          return values.map((value) => (byExternalId.has(value as string) ? [byExternalId.get(value as string)!] : []));
        },
      };
    }
    const field = type.fields.find((candidate) => candidate.key === matchOn);
    if (!field?.typeConfiguration.unique) {
      throw ApiError.invalidValue('matchOn', 'matchOn must be externalId or the key of a unique field of the type');
    }
    return {
      param: `fields.${field.key}`,
      valueOf: (write) => write.fields.get(field.key) ?? undefined,
      lockKeys: (workspaceId, value) =>
        probesOf(value).map((probe) => uniqueValueLockKey(workspaceId, type.slug, field.key, probe)),
      holders: async (workspaceId, values) => {
        const stored = await this.records.holdersOfValues(workspaceId, type.slug, field.key, values.flatMap(probesOf));
        return values.map((value) => {
          const probes = probesOf(value);
          return stored.filter((row) => probes.some((probe) => holds(row.value, probe))).map((row) => row.id);
        });
      },
    };
  }

  /**
   * Checks every planned write against other rows, then makes those that passed (see the class).
   * Answers each written input's outcome and record. `matchedBy`: the upsert that planned the
   * writes already holds every value lock they take, and found each input's record by its match.
   */
  private async write(
    caller: AuthContext,
    type: ObjectTypeDefinition,
    creates: PlannedCreate[],
    updates: PlannedUpdate[],
    failures: Failures,
    atomic: boolean,
    matchedBy?: Matcher,
  ): Promise<Map<number, UpsertAnswer>> {
    const { workspaceId } = caller;
    const current = new Map(
      (
        await this.records.lockMany(
          workspaceId,
          type,
          updates.map(({ id }) => id),
        )
      ).map((row) => [row.id, row]),
    );
    const planned = [...creates, ...updates].sort((a, b) => a.index - b.index);
    if (!matchedBy)
      await this.records.lockValues(planned.flatMap(({ write }) => this.lockKeysOf(workspaceId, type, write)));
    for (const { index, id } of updates) if (!current.has(id)) failures.add(index, ApiError.notFound(type.label));

    // What each input's relationships become: the links to make and to remove.
    const added = new Map<number, RecordLink[]>();
    const removed = new Map<number, RecordLink[]>();
    const changedKeys = new Map<number, string[]>();
    const isUpdate = new Set(updates.map(({ index }) => index));
    for (const { index, id, write } of planned) {
      if (failures.has(index)) continue;
      const row = current.get(id);
      const adding: RecordLink[] = [];
      const removing: RecordLink[] = [];
      const keys: string[] = [];
      const linked = new Set(row ? [] : write.links.map((change) => change.definition));
      if (!row) {
        // A relationship that defaults to the caller links the caller's own member when not given.
        for (const definition of type.relationships) {
          if (definition.defaultsToCaller && !linked.has(definition))
            adding.push([id, definition.binding.side, definition.binding.link, caller.memberId]);
        }
      }
      for (const change of write.links) {
        const before = row ? linkedThrough(row, change.definition) : [];
        const dropping = new Set(change.remove);
        const next = new Set(change.set ?? [...before.filter((other) => !dropping.has(other)), ...change.add]);
        const error = linkCountError(change.definition, next.size);
        if (error) {
          failures.add(index, error);
          break;
        }
        const { side, link } = change.definition.binding;
        const had = new Set(before);
        const gone = before.filter((other) => !next.has(other));
        const come = [...next].filter((other) => !had.has(other));
        if (gone.length + come.length > 0) keys.push(change.definition.key);
        for (const other of gone) removing.push([id, side, link, other]);
        for (const other of come) adding.push([id, side, link, other]);
      }
      added.set(index, adding);
      removed.set(index, removing);
      changedKeys.set(index, keys);
    }
    await this.checkTargets(workspaceId, planned, failures);
    await this.checkUniqueFields(workspaceId, type, planned, failures);
    // Matched on externalId, no input holds another record's: it found none, or that record.
    if (matchedBy?.param !== 'externalId') await this.checkExternalIds(workspaceId, type, planned, failures);
    this.checkMoves(type, planned, added, failures);
    // The records table bounds a record's fields; an update can take one past it (a create's body cannot).
    for (const { index, id, write } of updates) {
      const row = current.get(id);
      if (row && !failures.has(index) && jsonbTextBytes(mergedFields(row, write)) > MAX_RECORD_FIELDS_BYTES)
        failures.add(index, fieldsTooLarge());
    }
    if (atomic && failures.size > 0) throw failures.first()!;

    const passed = planned.filter(({ index }) => !failures.has(index));
    const updatedAt = new Date();
    // Records that may link to one record only move to the new one: their old ends change too.
    for (const definition of type.relationships.filter((r) => r.inverseOfHasOne && r.binding.side === 'target')) {
      const moving = passed.flatMap(({ index }) =>
        added.get(index)!.filter(([, side, link]) => side === 'target' && link === definition.binding.link),
      );
      if (moving.length > 0)
        await this.service.moveHere(
          caller,
          type.slug,
          definition,
          moving.map(([, , , other]) => other),
        );
    }
    const made: NewRecord[] = [];
    const changedRows: { id: string; fields: Record<string, unknown>; externalId: string | null }[] = [];
    const fieldChanges = new Map<number, string[]>();
    for (const { index, id, write } of passed) {
      const row = current.get(id);
      if (!isUpdate.has(index) || !row) {
        made.push({
          id,
          workspaceId,
          slug: type.slug,
          fields: storedFields(write.fields),
          externalId: write.externalId ?? null,
          createdAt: updatedAt,
        });
        continue;
      }
      const fields = mergedFields(row, write);
      const externalId = write.externalId === undefined ? row.external_id : write.externalId;
      const changedFields = changedFieldKeys(row.fields, fields);
      fieldChanges.set(index, changedFields);
      if (changedFields.length > 0 || changedKeys.get(index)!.length > 0 || externalId !== row.external_id) {
        changedRows.push({ id, fields, externalId });
      }
    }
    await this.records.insertMany(workspaceId, type.slug, made);
    await this.records.updateMany(changedRows, updatedAt);
    await this.links.unlinkMany(passed.flatMap(({ index }) => removed.get(index)!));
    await this.links.linkMany(
      workspaceId,
      passed.flatMap(({ index }) => added.get(index)!),
    );

    const rows = new Map(
      (
        await this.records.findMany(
          workspaceId,
          type,
          passed.map(({ id }) => id),
        )
      ).map((row) => [row.id, row]),
    );
    const changed = new Set(changedRows.map(({ id }) => id));
    const written = new Map<number, UpsertAnswer>();
    for (const { index, id } of passed) {
      const [data] = this.service.toEnvelopes(type, [rows.get(id)!]);
      if (!isUpdate.has(index)) {
        this.events.record(this.service.change(caller, type.slug, id, 'created', data));
        written.set(index, { outcome: 'created', data });
      } else if (changed.has(id)) {
        const changes = { fields: fieldChanges.get(index)!, relationships: changedKeys.get(index)! };
        this.events.record(this.service.change(caller, type.slug, id, 'updated', data, changes));
        written.set(index, { outcome: 'updated', data });
      } else {
        written.set(index, { outcome: 'unchanged', data });
      }
    }
    // Once the links exist: the other ends' events show them, one statement per relationship.
    for (const definition of type.relationships) {
      const { side, link } = definition.binding;
      const others = passed.flatMap(({ index }) =>
        [...added.get(index)!, ...removed.get(index)!]
          .filter((end) => end[1] === side && end[2] === link)
          .map(([, , , other]) => other),
      );
      if (others.length > 0) await this.service.touchOtherEnds(caller, definition, [...new Set(others)]);
    }
    return written;
  }

  /** The value locks a write takes (see RecordsRepository.isValueTaken): its `unique` values and its externalId. */
  private lockKeysOf(workspaceId: string, type: ObjectTypeDefinition, write: RecordWrite): string[] {
    const keys =
      typeof write.externalId === 'string' ? [externalIdLockKey(workspaceId, type.slug, write.externalId)] : [];
    for (const field of type.fields) {
      const value = write.fields.get(field.key);
      if (!field.typeConfiguration.unique || value === null || value === undefined) continue;
      for (const probe of probesOf(value)) keys.push(uniqueValueLockKey(workspaceId, type.slug, field.key, probe));
    }
    return keys;
  }

  /** Every id a write links must be a record (or member, file) of the workspace: one query per related type. */
  private async checkTargets(
    workspaceId: string,
    planned: (PlannedCreate | PlannedUpdate)[],
    failures: Failures,
  ): Promise<void> {
    const byType = new Map<string, Set<string>>();
    for (const { index, write } of planned) {
      if (failures.has(index)) continue;
      for (const change of write.links) {
        const { objectType, key } = change.definition;
        const ids = [...(change.set ?? []), ...change.add];
        const malformed = ids.find((id) => !isRecordIdOf(objectType, id));
        if (malformed !== undefined)
          failures.add(index, relationshipEntityMissing(objectType, malformed, `relationships.${key}`));
        const wanted = byType.get(objectType) ?? new Set();
        for (const id of ids) wanted.add(id);
        byType.set(objectType, wanted);
      }
    }
    const found = new Map<string, Set<string>>();
    for (const [objectType, ids] of byType)
      found.set(objectType, await this.targets.existing(workspaceId, objectType, [...ids]));
    for (const { index, write } of planned) {
      if (failures.has(index)) continue;
      for (const change of write.links) {
        const { objectType, key } = change.definition;
        const absent = [...(change.set ?? []), ...change.add].find((id) => !found.get(objectType)!.has(id));
        if (absent !== undefined) {
          failures.add(index, relationshipEntityMissing(objectType, absent, `relationships.${key}`));
          break;
        }
      }
    }
  }

  /**
   * `unique` fields (409 `duplicate_value`, as a single write): a value another record holds, or an
   * earlier input of the batch writes. One query per unique field, under the locks `write` took.
   */
  private async checkUniqueFields(
    workspaceId: string,
    type: ObjectTypeDefinition,
    planned: (PlannedCreate | PlannedUpdate)[],
    failures: Failures,
  ): Promise<void> {
    for (const field of type.fields.filter((candidate) => candidate.typeConfiguration.unique)) {
      const writing = planned.filter(({ index, write }) => !failures.has(index) && write.fields.get(field.key) != null);
      if (writing.length === 0) continue;
      const stored = await this.records.holdersOfValues(
        workspaceId,
        type.slug,
        field.key,
        writing.flatMap(({ write }) => probesOf(write.fields.get(field.key))),
      );
      const claimed: { id: string; value: unknown }[] = [];
      for (const { index, id, write } of writing) {
        const probes = probesOf(write.fields.get(field.key));
        const taken = [...stored, ...claimed].some(
          (holder) => holder.id !== id && probes.some((probe) => holds(holder.value, probe)),
        );
        if (taken)
          failures.add(
            index,
            new ApiError(
              409,
              'duplicate_value',
              `Another ${type.slug} already has this ${field.key}`,
              `fields.${field.key}`,
            ),
          );
        else claimed.push({ id, value: write.fields.get(field.key) });
      }
    }
  }

  /** An externalId another record of the type holds, or an earlier input of the batch sets: 409 `duplicate_value`. */
  private async checkExternalIds(
    workspaceId: string,
    type: ObjectTypeDefinition,
    planned: (PlannedCreate | PlannedUpdate)[],
    failures: Failures,
  ): Promise<void> {
    const setting = planned.filter(({ index, write }) => !failures.has(index) && typeof write.externalId === 'string');
    if (setting.length === 0) return;
    const holders = await this.records.holdersOfExternalIds(
      workspaceId,
      type.slug,
      setting.map(({ write }) => write.externalId!),
    );
    const claimed = new Map<string, string>();
    for (const { index, id, write } of setting) {
      const externalId = write.externalId!;
      const holder = claimed.get(externalId) ?? holders.get(externalId);
      if (holder !== undefined && holder !== id) {
        failures.add(
          index,
          new ApiError(409, 'duplicate_value', 'Another record of this type already has this externalId', 'externalId'),
        );
      } else {
        claimed.set(externalId, id);
      }
    }
  }

  /** A record that may link to one record only cannot be moved to two by one batch: the later input is 422. */
  private checkMoves(
    type: ObjectTypeDefinition,
    planned: (PlannedCreate | PlannedUpdate)[],
    added: Map<number, RecordLink[]>,
    failures: Failures,
  ): void {
    for (const definition of type.relationships.filter((r) => r.inverseOfHasOne && r.binding.side === 'target')) {
      const mover = new Map<string, number>();
      for (const { index } of planned) {
        if (failures.has(index)) continue;
        const moving = added
          .get(index)!
          .filter(([, side, link]) => side === 'target' && link === definition.binding.link);
        const twice = moving.find(([, , , other]) => mover.has(other));
        if (twice) {
          const param = `relationships.${definition.key}`;
          failures.add(
            index,
            ApiError.invalidValue(
              param,
              `inputs[${mover.get(twice[3])}] of this batch already links ${twice[3]} through ${definition.key}`,
            ),
          );
          continue;
        }
        for (const [, , , other] of moving) mover.set(other, index);
      }
    }
  }
}

/** The error of a single upsert, which has no `inputs`: its param as the single write's. */
function unprefixed(error: ApiError): ApiError {
  const param = error.param === 'inputs[0]' ? undefined : error.param?.replace(/^inputs\[0\]\./, '');
  return new ApiError(error.status, error.code, error.message, param, error.headers);
}

/** The members of a batch body: at most MAX_BATCH_INPUTS inputs, `atomic` false unless given. */
function readBatch(body: unknown, kind: BatchKind): { inputs: unknown[]; atomic: boolean; matchOn?: unknown } {
  if (!isPlainObject(body)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!BATCH_MEMBERS[kind].has(key)) throw ApiError.unknownField(key);
  }
  const { inputs, atomic, matchOn } = body;
  if (inputs === undefined || inputs === null) throw ApiError.missing('inputs');
  if (!Array.isArray(inputs)) throw ApiError.invalidType('inputs', 'an array of inputs');
  if (inputs.length === 0 || inputs.length > MAX_BATCH_INPUTS) {
    throw ApiError.invalidValue('inputs', `inputs must hold 1 to ${MAX_BATCH_INPUTS} inputs; got ${inputs.length}`);
  }
  if (atomic !== undefined && atomic !== null && typeof atomic !== 'boolean')
    throw ApiError.invalidType('atomic', 'a boolean');
  return { inputs, atomic: atomic === true, matchOn };
}

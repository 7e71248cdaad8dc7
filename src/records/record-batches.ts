import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth-context';
import { ApiError, type ErrorBody } from '../common/errors/api-error';
import type { ErrorStatus } from '../common/errors/error-codes';
import { ifMatchOf, ifNoneMatchOf, missingPrecondition, type WriteCondition } from '../common/http/entity-tags';
import { Transactions } from '../database/transactions';
import { DefinitionsService } from './definitions.service';
import type { EntityEnvelopeDto } from './entity-envelope';
import type { ObjectTypeDefinition } from './object-type';
import { isRecordIdOf, newRecordId } from './record-ids';
import { isPlainObject, probesOf, readRecordWrite, type RecordWrite } from './record-write';
import { RecordWriter, type WriteAnswer, type WriteOutcome } from './record-writer';
import { externalIdLockKey, RecordsRepository, uniqueValueLockKey } from './records.repository';
import { holds, RecordWriteChecks } from './write-checks';
import { Failures } from './write-failures';
import type { PlannedWrite } from './write-plan';

export type { WriteOutcome };

/** The most inputs one batch call takes (docs/api.md, "Batch writes"). */
export const MAX_BATCH_INPUTS = 100;

/** One input's answer in a batch: its record, or its error's members. */
export type BatchItemResult =
  { status: 200; outcome: WriteOutcome; data: EntityEnvelopeDto } | { status: ErrorStatus; error: ErrorBody['error'] };

export interface BatchAnswer {
  object: 'batch';
  results: BatchItemResult[];
}

type BatchKind = 'create' | 'update' | 'upsert';

const BATCH_MEMBERS: Record<BatchKind, Set<string>> = {
  create: new Set(['inputs', 'atomic']),
  update: new Set(['inputs', 'atomic']),
  upsert: new Set(['matchOn', 'inputs', 'atomic']),
};

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

/**
 * Batch creates, updates and upserts of one record type (docs/api.md, "Batch writes"), and the
 * single upsert: each input is read by the single write's own reader (readRecordWrite), an
 * upsert's inputs are matched to their records, and the planned writes go through the one write
 * path (RecordWriter), whose statements are as many for a hundred inputs as for two.
 */
@Injectable()
export class RecordBatches {
  constructor(
    private readonly transactions: Transactions,
    private readonly definitions: DefinitionsService,
    private readonly records: RecordsRepository,
    private readonly checks: RecordWriteChecks,
    private readonly writer: RecordWriter,
  ) {}

  async createMany(caller: AuthContext, slug: string, body: unknown): Promise<BatchAnswer> {
    const type = await this.definitions.typeOf(caller, slug);
    const { inputs, atomic } = readBatch(body, 'create');
    const failures = new Failures(true);
    const creates: PlannedWrite[] = [];
    inputs.forEach((input, index) => {
      const write = failures.catch(index, () => readRecordWrite(type, input, true));
      if (write) creates.push({ index, id: newRecordId(slug), write, creates: true });
    });
    return this.answer(inputs.length, failures, atomic, () =>
      this.writer.write(caller, type, creates, failures, { atomic }),
    );
  }

  async updateMany(caller: AuthContext, slug: string, body: unknown): Promise<BatchAnswer> {
    const type = await this.definitions.typeOf(caller, slug);
    const { inputs, atomic } = readBatch(body, 'update');
    const failures = new Failures(true);
    const updates: PlannedWrite[] = [];
    const seen = new Map<string, number>();
    inputs.forEach((input, index) => {
      const planned = failures.catch(index, () => {
        const {
          input: { id, ...change },
          condition,
        } = readPreconditions(caller, input, 'update');
        if (id === undefined || id === null) throw ApiError.missing('id');
        if (typeof id !== 'string') throw ApiError.invalidType('id', 'a string');
        if (!isRecordIdOf(slug, id)) throw ApiError.notFound(type.label);
        const write = readRecordWrite(type, change, false);
        if (seen.has(id))
          throw ApiError.invalidValue('id', `inputs[${seen.get(id)}] of this batch already updates ${id}`);
        seen.set(id, index);
        return { index, id, write, creates: false, condition };
      });
      if (planned) updates.push(planned);
    });
    return this.answer(inputs.length, failures, atomic, () =>
      this.writer.write(caller, type, updates, failures, { atomic }),
    );
  }

  async upsertMany(caller: AuthContext, slug: string, body: unknown): Promise<BatchAnswer> {
    const type = await this.definitions.typeOf(caller, slug);
    const { inputs, atomic, matchOn } = readBatch(body, 'upsert');
    const matcher = this.matcherOf(type, matchOn);
    const failures = new Failures(true);
    const conditioned = inputs.map((input, index) =>
      failures.catch(index, () => readPreconditions(caller, input, 'upsert')),
    );
    return this.answer(inputs.length, failures, atomic, () =>
      this.upsertInputs(caller, type, matcher, conditioned, failures, atomic),
    );
  }

  /**
   * One upsert (`POST …/upsert`): a batch of one atomic input, its error the request's, its
   * condition its request's headers.
   */
  async upsert(caller: AuthContext, slug: string, body: unknown, condition?: WriteCondition): Promise<WriteAnswer> {
    const type = await this.definitions.typeOf(caller, slug);
    if (!isPlainObject(body)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
    const { matchOn, ...input } = body;
    const matcher = this.matcherOf(type, matchOn);
    const failures = new Failures(false);
    const results = await this.transactions.run(() =>
      this.upsertInputs(caller, type, matcher, [{ input, condition }], failures, true),
    );
    return results.get(0)!;
  }

  /** The answer of a batch: its results in input order (an atomic one's failure is thrown by the writer). */
  private async answer(
    count: number,
    failures: Failures,
    atomic: boolean,
    work: () => Promise<Map<number, WriteAnswer>>,
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
    inputs: (ConditionedInput | undefined)[],
    failures: Failures,
    atomic: boolean,
  ): Promise<Map<number, WriteAnswer>> {
    const probed = this.matchValues(caller, type, matcher, inputs, failures);
    if (atomic && failures.size > 0) throw failures.first()!;
    await this.records.lockValues(probed.flatMap(({ lockKeys }) => lockKeys));
    const holders = await matcher.holders(
      caller.workspaceId,
      probed.map(({ value }) => value),
    );
    const planned: PlannedWrite[] = [];
    probed.forEach(({ index, input, condition }, position) => {
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
        if (found.length === 0) {
          const write = readRecordWrite(type, input, true);
          planned.push({ index, id: newRecordId(type.slug), write, creates: true, condition });
        } else {
          const write = readRecordWrite(type, input, false, true);
          planned.push({ index, id: found[0], write, creates: false, condition });
        }
      });
    });
    return this.writer.write(caller, type, planned, failures, { atomic, matchedOn: matcher.param });
  }

  /**
   * Each input's match value, and every value lock its write will take: taken together before the
   * match, in one order, never one after another. Two inputs of one value are refused.
   */
  private matchValues(
    caller: AuthContext,
    type: ObjectTypeDefinition,
    matcher: Matcher,
    inputs: (ConditionedInput | undefined)[],
    failures: Failures,
  ): (ConditionedInput & { index: number; value: unknown; lockKeys: string[] })[] {
    const firstWithKey = new Map<string, number>();
    return inputs.flatMap((conditioned, index) => {
      if (!conditioned) return [];
      const { input, condition } = conditioned;
      const read = failures.catch(index, () => {
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
        const lockKeys = this.checks.lockKeysOf(caller.workspaceId, type, { fields, links: [], externalId }, true);
        return { index, input, condition, value, lockKeys };
      });
      return read ? [read] : [];
    });
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
}

/** An input (its members but its preconditions), and what it requires of the record it writes. */
interface ConditionedInput {
  input: Record<string, unknown>;
  condition?: WriteCondition;
}

/**
 * A batch input and its preconditions, which its record must meet as a request's headers would
 * (docs/api.md §7, "Conditional requests"): `ifMatch` (`*`, or entity tags such as `"v3"`) and, on
 * an upsert, `ifNoneMatch` (`*`: create only). 428 without one when the workspace requires it.
 */
function readPreconditions(caller: AuthContext, input: unknown, route: 'update' | 'upsert'): ConditionedInput {
  if (!isPlainObject(input)) throw new ApiError(400, 'invalid_json', 'Each input must be a JSON object');
  const { ifMatch, ifNoneMatch, ...members } = input;
  // An update's record exists: If-None-Match would only ever refuse it, so an update has none.
  if (route === 'update' && Object.hasOwn(input, 'ifNoneMatch')) throw ApiError.unknownField('ifNoneMatch');
  const condition: WriteCondition = {};
  if (ifMatch !== undefined && ifMatch !== null)
    condition.ifMatch = ifMatchOf(tagsMember('ifMatch', ifMatch), 'ifMatch');
  if (ifNoneMatch !== undefined && ifNoneMatch !== null) {
    condition.ifNoneMatch = ifNoneMatchOf(tagsMember('ifNoneMatch', ifNoneMatch), 'ifNoneMatch');
  }
  const conditioned = Object.keys(condition).length > 0 ? condition : undefined;
  const missing = missingPrecondition(caller, conditioned, route, 'ifMatch');
  if (missing) throw missing;
  return { input: members, condition: conditioned };
}

/** A precondition member's value: a string in its header's syntax. */
function tagsMember(param: 'ifMatch' | 'ifNoneMatch', value: unknown): string {
  if (typeof value !== 'string') throw ApiError.invalidType(param, 'a string: * or entity tags such as "v3"');
  return value;
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

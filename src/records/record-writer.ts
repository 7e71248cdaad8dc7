import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth-context';
import { ApiError } from '../common/errors/api-error';
import { conditionFailure, preconditionFailed } from '../common/http/entity-tags';
import { Transactions } from '../database/transactions';
import { ChangeEvents } from './change-events';
import type { EntityEnvelopeDto } from './entity-envelope';
import { LinkedEnds } from './linked-ends';
import type { ObjectTypeDefinition } from './object-type';
import { RecordEnvelopes, recordChange } from './record-envelopes';
import { LinkEnd, RecordLinksRepository } from './record-links.repository';
import { RecordRow, RecordsRepository } from './records.repository';
import { RecordWriteChecks } from './write-checks';
import { Failures } from './write-failures';
import {
  changedFieldKeys,
  LinkPlan,
  mergedFields,
  planLinks,
  PlannedWrite,
  setsUniqueValues,
  storedFields,
} from './write-plan';

export type WriteOutcome = 'created' | 'updated' | 'unchanged';

/** What a write did with one input: its outcome and the record as a read returns it after. */
export interface WriteAnswer {
  outcome: WriteOutcome;
  data: EntityEnvelopeDto;
}

export interface WriteOptions {
  /** Whether one input's failure fails them all (it is thrown, and nothing is written). */
  atomic: boolean;
  /**
   * A single route's write, its one input's failure the request's: the records table's own
   * refusals (a taken externalId, fields over its bound) answer for it, which a batch must find
   * before it writes so that its other inputs are written.
   */
  alone?: boolean;
  /** The upsert that planned the writes holds every value lock they take and matched each input on this param. */
  matchedOn?: string;
  /** Runs once the records to update are found and locked, before any check: a caller's own permission check holds until the commit. */
  beforeWrite?: () => Promise<void>;
  /** Links that the system maintains (meeting `$contact`…): their ids are trusted to be of the type and workspace. */
  trusted?: boolean;
}

/** A write under way: who writes, the type, the records its updates locked, each input's link plan. */
interface Writing {
  caller: AuthContext;
  type: ObjectTypeDefinition;
  current: Map<string, RecordRow>;
  plans: Map<number, LinkPlan>;
}

/** An update's change to its record: the row to write, and what it says changed. */
interface RecordChange {
  row: { id: string; fields: Record<string, unknown>; externalId: string | null };
  fields: string[];
}

/**
 * The one write path of records, for every type: creates, updates and upserts, alone or in a
 * batch. Inputs are planned (write-plan.ts), checked set-based (RecordWriteChecks), then applied
 * set-based: one statement makes every new record with its links and counter, one removes and
 * one makes the updated records' links, one writes them, one per relationship moves the other
 * ends; the change events are appended before the commit. A single write is a batch of one, and
 * two of its shapes are one statement: a create with nothing to check, an update of fields only.
 *
 * Every failure an input can meet is found before anything is written, so an atomic write writes
 * nothing when one fails, and a per-item batch writes exactly the inputs that passed.
 */
@Injectable()
export class RecordWriter {
  constructor(
    private readonly transactions: Transactions,
    private readonly records: RecordsRepository,
    private readonly links: RecordLinksRepository,
    private readonly checks: RecordWriteChecks,
    private readonly ends: LinkedEnds,
    private readonly events: ChangeEvents,
    private readonly envelopes: RecordEnvelopes,
  ) {}

  /** A single write: its failure is thrown as the route answers it. */
  async writeOne(
    caller: AuthContext,
    type: ObjectTypeDefinition,
    planned: PlannedWrite,
    options: Pick<WriteOptions, 'beforeWrite' | 'trusted'> = {},
  ): Promise<WriteAnswer> {
    // Nothing to check against other rows: no relationship given, no unique value set.
    const unchecked = planned.write.links.length === 0 && !setsUniqueValues(type, planned.write);
    const { condition } = planned;
    if (unchecked && planned.creates && !condition && !this.transactions.active)
      return this.createRecorded(caller, type, planned);
    return this.transactions.run(async () => {
      if (unchecked && !planned.creates && !options.beforeWrite && !condition?.ifNoneMatch)
        return this.patch(caller, type, planned);
      const failures = new Failures(false);
      const written = await this.write(caller, type, [planned], failures, { atomic: true, alone: true, ...options });
      return written.get(planned.index)!;
    });
  }

  /**
   * Checks every planned write against other rows, then makes those that passed, in the ambient
   * transaction: each written input's outcome and record.
   */
  async write(
    caller: AuthContext,
    type: ObjectTypeDefinition,
    planned: PlannedWrite[],
    failures: Failures,
    options: WriteOptions,
  ): Promise<Map<number, WriteAnswer>> {
    const { workspaceId } = caller;
    const current = await this.lockCurrent(workspaceId, type, planned, failures);
    if (options.atomic && failures.size > 0) throw failures.first()!;
    await options.beforeWrite?.();
    // Under the records' locks, and once the caller may write them (RFC 9110 §13.2.1: a request
    // that would fail without its preconditions fails so with them).
    for (const { index, id, condition } of planned) {
      const failure = failures.has(index) ? undefined : conditionFailure(condition, current.get(id)?.version);
      if (failure) failures.add(index, failure);
    }
    if (options.atomic && failures.size > 0) throw failures.first()!;
    if (!options.matchedOn) {
      const keys = planned.flatMap(({ write }) => this.checks.lockKeysOf(workspaceId, type, write, !options.alone));
      await this.records.lockValues(keys);
    }
    const plans = new Map<number, LinkPlan>();
    for (const input of planned) {
      if (!failures.has(input.index))
        plans.set(input.index, planLinks(type, input, current.get(input.id), caller.memberId));
    }
    const writing: Writing = { caller, type, current, plans };
    await this.check(writing, planned, failures, options);
    if (options.atomic && failures.size > 0) throw failures.first()!;
    return this.apply(
      writing,
      planned.filter(({ index }) => !failures.has(index)),
    );
  }

  /** The records the updates change, locked: an update of no such record fails 404. */
  private async lockCurrent(
    workspaceId: string,
    type: ObjectTypeDefinition,
    planned: PlannedWrite[],
    failures: Failures,
  ): Promise<Map<string, RecordRow>> {
    const updates = planned.filter(({ creates }) => !creates);
    const rows = await this.records.lockMany(
      workspaceId,
      type,
      updates.map(({ id }) => id),
    );
    const current = new Map(rows.map((row) => [row.id, row]));
    for (const { index, id } of updates) if (!current.has(id)) failures.add(index, ApiError.notFound(type.label));
    return current;
  }

  /** The checks against other rows, in the order a single write has always met them. */
  private async check(
    { caller: { workspaceId }, type, current, plans }: Writing,
    planned: PlannedWrite[],
    failures: Failures,
    options: WriteOptions,
  ): Promise<void> {
    if (!options.trusted) await this.checks.linkTargets(workspaceId, planned, failures);
    await this.checks.uniqueValues(workspaceId, type, planned, failures);
    for (const [index, plan] of plans) if (plan.countError) failures.add(index, plan.countError);
    if (options.alone) return;
    // Matched on externalId, no input holds another record's: it found none, or that record.
    if (options.matchedOn !== 'externalId') await this.checks.externalIds(workspaceId, type, planned, failures);
    this.checks.moves(type, planned, plans, failures);
    this.checks.sizes(planned, current, failures);
  }

  /**
   * Writes the inputs that passed. The other ends of their links change before the updated records
   * are written and read, so that a record at both ends (its own parent) is answered as it ends up;
   * a create's event comes before its other ends', an update's after (as the feed always had them).
   */
  private async apply(writing: Writing, passed: PlannedWrite[]): Promise<Map<number, WriteAnswer>> {
    const { caller, type, plans } = writing;
    const { workspaceId } = caller;
    const at = new Date();
    const moved = await this.moveLinkedHere(writing, passed);
    const creates = passed.filter(({ creates }) => creates);
    const made = await this.records.insertMany(
      workspaceId,
      type,
      creates.map(({ id, write }) => ({
        id,
        fields: storedFields(write.fields),
        externalId: write.externalId ?? null,
        createdAt: at,
      })),
      creates.flatMap(({ index }) => plans.get(index)!.adding),
    );
    const written = this.answer(writing, creates, new Map(made.map((row) => [row.id, row])), new Map());
    const updates = passed.filter(({ creates }) => !creates);
    const changes = this.changesOf(writing, updates);
    const changing = updates.filter(({ index }) => changes.has(index));
    await this.links.unlinkMany(changing.flatMap(({ index }) => plans.get(index)!.removing));
    await this.links.linkMany(
      workspaceId,
      changing.flatMap(({ index }) => plans.get(index)!.adding),
    );
    await this.touchOtherEnds(writing, passed);
    const madeHere = changing.filter(({ id }) => this.events.createdHere(type.slug, id)).map(({ id }) => id);
    const updated = await this.records.updateMany(
      type,
      [...changes.values()].map(({ row }) => row),
      { updatedAt: at, except: madeHere },
    );
    const rows = new Map(updated.map((row) => [row.id, row]));
    await this.readUnchanged(writing, updates, rows, moved || made.length + updated.length > 0);
    for (const [index, answer] of this.answer(writing, updates, rows, changes)) written.set(index, answer);
    return written;
  }

  /**
   * The updates that change their record, by input. An update that changes nothing (its fields,
   * links and externalId as they are) writes nothing: `updatedAt` stays, and no event is recorded.
   */
  private changesOf({ current, plans }: Writing, updates: PlannedWrite[]): Map<number, RecordChange> {
    const changes = new Map<number, RecordChange>();
    for (const { index, id, write } of updates) {
      const row = current.get(id)!;
      const fields = mergedFields(row, write);
      const externalId = write.externalId === undefined ? row.external_id : write.externalId;
      const changedFields = changedFieldKeys(row.fields, fields);
      if (changedFields.length > 0 || plans.get(index)!.keys.length > 0 || externalId !== row.external_id)
        changes.set(index, { row: { id, fields, externalId }, fields: changedFields });
    }
    return changes;
  }

  /**
   * The records of unchanged updates: as they were locked, unless the write changed other records
   * (`wroteOthers`), whose links may end at them: then as they are now.
   */
  private async readUnchanged(
    { caller, type, current }: Writing,
    passed: PlannedWrite[],
    rows: Map<string, RecordRow>,
    wroteOthers: boolean,
  ): Promise<void> {
    const unchanged = passed.filter(({ id }) => !rows.has(id)).map(({ id }) => id);
    if (unchanged.length === 0) return;
    const reread = wroteOthers ? await this.records.findMany(caller.workspaceId, type, unchanged) : [];
    for (const id of unchanged) rows.set(id, current.get(id)!);
    for (const row of reread) rows.set(row.id, row);
  }

  /** Each input's answer, and the change event of each that created or changed its record. */
  private answer(
    { caller, type, plans }: Writing,
    passed: PlannedWrite[],
    rows: Map<string, RecordRow>,
    changes: Map<number, RecordChange>,
  ): Map<number, WriteAnswer> {
    const written = new Map<number, WriteAnswer>();
    for (const { index, id, creates } of passed) {
      const [data] = this.envelopes.of(type, [rows.get(id)!]);
      const change = changes.get(index);
      if (creates) {
        this.events.record(recordChange(caller, type.slug, id, 'created', data));
        written.set(index, { outcome: 'created', data });
      } else if (change) {
        const changed = { fields: change.fields, relationships: plans.get(index)!.keys };
        this.events.record(recordChange(caller, type.slug, id, 'updated', data, changed));
        written.set(index, { outcome: 'updated', data });
      } else {
        written.set(index, { outcome: 'unchanged', data });
      }
    }
    return written;
  }

  /**
   * Records that may link to one record only move to the one linking them now: their old ends
   * change too. Whether any moved.
   */
  private async moveLinkedHere({ caller, type, plans }: Writing, passed: PlannedWrite[]): Promise<boolean> {
    let moved = false;
    for (const definition of type.relationships.filter((r) => r.inverseOfHasOne && r.binding.side === 'target')) {
      const moving = passed.flatMap(({ index }) =>
        plans.get(index)!.adding.filter(([, side, link]) => side === 'target' && link === definition.binding.link),
      );
      if (moving.length === 0) continue;
      moved = true;
      await this.ends.moveHere(
        caller,
        type.slug,
        definition,
        moving.map(([, , , other]) => other),
      );
    }
    return moved;
  }

  /** Once the links are written: the other ends' events show them, one statement per relationship. */
  private async touchOtherEnds({ caller, type, plans }: Writing, passed: PlannedWrite[]): Promise<void> {
    for (const definition of type.relationships) {
      const { side, link } = definition.binding;
      const others = passed.flatMap(({ index }) => {
        const { adding, removing } = plans.get(index)!;
        return [...adding, ...removing].filter((end) => end[1] === side && end[2] === link).map((end) => end[3]);
      });
      if (others.length > 0) await this.ends.touch(caller, definition, [...new Set(others)]);
    }
  }

  /**
   * A create with nothing to check against other rows, outside any transaction: the record, its
   * links, its counter and its event in one statement. The record as the statement makes it (a
   * read returns its links sorted by id) is both the event's data and the answer.
   */
  private async createRecorded(
    caller: AuthContext,
    type: ObjectTypeDefinition,
    planned: PlannedWrite,
  ): Promise<WriteAnswer> {
    const links = planLinks(type, planned, undefined, caller.memberId).adding;
    const record = {
      id: planned.id,
      fields: storedFields(planned.write.fields),
      externalId: planned.write.externalId ?? null,
      createdAt: new Date(),
    };
    const row: RecordRow = {
      id: record.id,
      fields: record.fields,
      external_id: record.externalId,
      created_at: record.createdAt,
      updated_at: null,
      version: 1,
      links: links
        .map(([, side, link, other]): LinkEnd => [side, link, other])
        .sort((a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0)),
    };
    const [data] = this.envelopes.of(type, [row]);
    await this.records.insertRecorded(caller.workspaceId, type.slug, [record], links, [
      ChangeEvents.eventOf(recordChange(caller, type.slug, record.id, 'created', data)),
    ]);
    return { outcome: 'created', data };
  }

  /** An update of fields only: set and cleared in one statement, which writes only a change, and only at a version If-Match names. */
  private async patch(
    caller: AuthContext,
    type: ObjectTypeDefinition,
    { id, write, condition }: PlannedWrite,
  ): Promise<WriteAnswer> {
    const ifMatch = condition?.ifMatch;
    const patched = await this.records.patch(caller.workspaceId, type, id, {
      set: JSON.stringify(storedFields(write.fields)),
      cleared: [...write.fields].filter(([, value]) => value === null).map(([key]) => key),
      externalId: write.externalId,
      updatedAt: new Date(),
      // `*` asks that the record exist, as a patch of none answers anyway.
      ifMatch: ifMatch === '*' ? undefined : ifMatch,
    });
    if (!patched) throw ApiError.notFound(type.label);
    if (!patched.matched) throw preconditionFailed(patched.row.version);
    const [data] = this.envelopes.of(type, [patched.row]);
    if (!patched.changed) return { outcome: 'unchanged', data };
    const changes = { fields: changedFieldKeys(patched.previousFields, patched.row.fields), relationships: [] };
    this.events.record(recordChange(caller, type.slug, id, 'updated', data, changes));
    return { outcome: 'updated', data };
  }
}

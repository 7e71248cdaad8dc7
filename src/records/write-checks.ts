import { Injectable } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '../common/errors/api-error';
import { LinkTargets, relationshipEntityMissing } from './link-targets';
import type { ObjectTypeDefinition } from './object-type';
import { isRecordIdOf } from './record-ids';
import { probesOf, type RecordWrite } from './record-write';
import {
  externalIdLockKey,
  fieldsTooLarge,
  MAX_RECORD_FIELDS_BYTES,
  RecordRow,
  RecordsRepository,
  uniqueValueLockKey,
} from './records.repository';
import type { Failures } from './write-failures';
import { type LinkPlan, mergedFields, type PlannedWrite } from './write-plan';

/** Whether a stored value holds a probe (probesOf): an element of an array, else by equality. */
export function holds(stored: unknown, probe: unknown): boolean {
  if (Array.isArray(probe) && Array.isArray(stored))
    return stored.some((element) => isDeepStrictEqual(element, probe[0]));
  return isDeepStrictEqual(stored, probe);
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

function duplicateValue(type: ObjectTypeDefinition, fieldKey: string): ApiError {
  return new ApiError(
    409,
    'duplicate_value',
    `Another ${type.slug} already has this ${fieldKey}`,
    `fields.${fieldKey}`,
  );
}

/**
 * The checks of a write's inputs against other rows and against each other, each set-based (one
 * query per related type, per `unique` field, for every externalId), the one place each rule is
 * checked. A failed input is kept in `failures` and left out of the checks after.
 */
@Injectable()
export class RecordWriteChecks {
  constructor(
    private readonly records: RecordsRepository,
    private readonly targets: LinkTargets,
  ) {}

  /**
   * The value locks a write takes, under which writes of one value take turns: its `unique`
   * values, and its externalId when `withExternalId` (the table's unique index makes a lone
   * write's wait on it without one).
   */
  lockKeysOf(workspaceId: string, type: ObjectTypeDefinition, write: RecordWrite, withExternalId: boolean): string[] {
    const keys =
      withExternalId && typeof write.externalId === 'string'
        ? [externalIdLockKey(workspaceId, type.slug, write.externalId)]
        : [];
    for (const field of type.fields) {
      const value = write.fields.get(field.key);
      if (!field.typeConfiguration.unique || value === null || value === undefined) continue;
      for (const probe of probesOf(value)) keys.push(uniqueValueLockKey(workspaceId, type.slug, field.key, probe));
    }
    return keys;
  }

  /** Every id a write links must be a record (or member, file) of the workspace (422 `relationship_entity_missing`). */
  async linkTargets(workspaceId: string, planned: PlannedWrite[], failures: Failures): Promise<void> {
    const byType = new Map<string, Set<string>>();
    for (const { index, write } of planned) {
      if (failures.has(index)) continue;
      for (const change of write.links) {
        const { objectType, key } = change.definition;
        const ids = [...(change.set ?? []), ...change.add];
        // By shape first: a malformed id is never looked for.
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
   * `unique` fields (docs/api.md §7: 409 `duplicate_value`): a value another record holds, or an
   * earlier input writes. A multi-valued field is unique per element; an object (ADDRESS,
   * FULL_NAME) by equality. Under the value locks (lockKeysOf) the write took.
   */
  async uniqueValues(
    workspaceId: string,
    type: ObjectTypeDefinition,
    planned: PlannedWrite[],
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
        if (taken) failures.add(index, duplicateValue(type, field.key));
        else claimed.push({ id, value: write.fields.get(field.key) });
      }
    }
  }

  /** An externalId another record of the type holds, or an earlier input sets: 409 `duplicate_value`. */
  async externalIds(
    workspaceId: string,
    type: ObjectTypeDefinition,
    planned: PlannedWrite[],
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

  /** A record that may link to one record only cannot be moved to two by one write: the later input is 422. */
  moves(type: ObjectTypeDefinition, planned: PlannedWrite[], plans: Map<number, LinkPlan>, failures: Failures): void {
    for (const definition of type.relationships.filter((r) => r.inverseOfHasOne && r.binding.side === 'target')) {
      const mover = new Map<string, number>();
      for (const { index } of planned) {
        if (failures.has(index)) continue;
        const moving = plans
          .get(index)!
          .adding.filter(([, side, link]) => side === 'target' && link === definition.binding.link);
        const twice = moving.find(([, , , other]) => mover.has(other));
        if (twice) {
          const param = `relationships.${definition.key}`;
          const message = `inputs[${mover.get(twice[3])}] of this batch already links ${twice[3]} through ${definition.key}`;
          failures.add(index, ApiError.invalidValue(param, message));
          continue;
        }
        for (const [, , , other] of moving) mover.set(other, index);
      }
    }
  }

  /** The records table bounds a record's fields; an update can take one past it (a create's body cannot). */
  sizes(planned: PlannedWrite[], current: Map<string, RecordRow>, failures: Failures): void {
    for (const { index, id, write, creates } of planned) {
      const row = current.get(id);
      if (!creates && row && !failures.has(index) && jsonbTextBytes(mergedFields(row, write)) > MAX_RECORD_FIELDS_BYTES)
        failures.add(index, fieldsTooLarge());
    }
  }
}

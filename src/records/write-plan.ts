import { isDeepStrictEqual } from 'node:util';
import type { ApiError } from '../common/errors/api-error';
import type { WriteCondition } from '../common/http/entity-tags';
import type { ObjectTypeDefinition, RelationshipDefinition } from './object-type';
import type { RecordLink } from './record-links.repository';
import { linkCountError, type RecordWrite } from './record-write';
import type { RecordRow } from './records.repository';

/** One input of a write, read and validated: a new record, or a change to the record `id`. */
export interface PlannedWrite {
  index: number;
  id: string;
  write: RecordWrite;
  creates: boolean;
  /** What the record's version must be (If-Match, If-None-Match, a batch input's `ifMatch`). */
  condition?: WriteCondition;
}

/**
 * What an input's relationships become: the links to make and to remove, the relationships whose
 * links change, and why one of them cannot hold what it would (a HAS_ONE given two ids…).
 */
export interface LinkPlan {
  adding: RecordLink[];
  removing: RecordLink[];
  keys: string[];
  countError?: ApiError;
}

/** The fields document to store: every set value (`null` clears, so it is left out). */
export function storedFields(values: ReadonlyMap<string, unknown>): Record<string, unknown> {
  return Object.fromEntries([...values].filter(([, value]) => value !== null));
}

/** A record's fields once an update's are set on them (null clears). */
export function mergedFields(row: RecordRow, write: RecordWrite): Record<string, unknown> {
  return storedFields(new Map([...Object.entries(row.fields), ...write.fields]));
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

/** Whether the write sets a value of a `unique` field, which must be checked against other records. */
export function setsUniqueValues(type: ObjectTypeDefinition, write: RecordWrite): boolean {
  return type.fields.some((field) => field.typeConfiguration.unique && write.fields.get(field.key) != null);
}

/** The links of `row` through `definition`'s binding: the other ends' ids, in link order. */
function linkedThrough(row: RecordRow, definition: RelationshipDefinition): string[] {
  const { side, link } = definition.binding;
  return row.links.filter(([end, name]) => end === side && name === link).map(([, , other]) => other);
}

/**
 * The links an input makes and removes, from the record's links as they are (`current`, none for a
 * new record). A new record's relationships that default to the caller link `callerMemberId` when
 * the input does not give them.
 */
export function planLinks(
  type: ObjectTypeDefinition,
  { id, write }: PlannedWrite,
  current: RecordRow | undefined,
  callerMemberId: string,
): LinkPlan {
  const plan: LinkPlan = { adding: [], removing: [], keys: [] };
  if (!current) {
    const given = new Set(write.links.map((change) => change.definition));
    for (const definition of type.relationships) {
      if (definition.defaultsToCaller && !given.has(definition))
        plan.adding.push([id, definition.binding.side, definition.binding.link, callerMemberId]);
    }
  }
  for (const change of write.links) {
    const before = current ? linkedThrough(current, change.definition) : [];
    const dropping = new Set(change.remove);
    // Sets: a HAS_MANY relationship may hold many links, and comparing arrays would be quadratic.
    const next = new Set(change.set ?? [...before.filter((other) => !dropping.has(other)), ...change.add]);
    plan.countError = linkCountError(change.definition, next.size);
    if (plan.countError) break;
    const { side, link } = change.definition.binding;
    const had = new Set(before);
    const gone = before.filter((other) => !next.has(other));
    const come = [...next].filter((other) => !had.has(other));
    if (gone.length + come.length > 0) plan.keys.push(change.definition.key);
    for (const other of gone) plan.removing.push([id, side, link, other]);
    for (const other of come) plan.adding.push([id, side, link, other]);
  }
  return plan;
}

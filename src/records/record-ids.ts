import { IdKind, isIdOf, newId } from '../common/ids';

/** Keyed by type slug, which a workspace chooses (`constructor` is a valid custom slug): a Map. */
const SYSTEM_ID_KINDS = new Map<string, IdKind>([
  ['account', 'account'],
  ['contact', 'contact'],
  ['opportunity', 'opportunity'],
  ['member', 'member'],
  ['note', 'note'],
  ['task', 'task'],
  ['meeting', 'meeting'],
  ['file', 'file'],
]);

/** System types have their own id prefix; every custom type's records are `rec_…`. */
export function idKindOf(objectType: string): IdKind {
  return SYSTEM_ID_KINDS.get(objectType) ?? 'record';
}

export function newRecordId(objectType: string): string {
  return newId(idKindOf(objectType));
}

export function isRecordIdOf(objectType: string, value: unknown): value is string {
  return isIdOf(idKindOf(objectType), value);
}

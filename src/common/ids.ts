import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * Ids are `<prefix>_<ULID>` (docs/api.md §3): opaque, and monotonic in creation order within a
 * process, so `created_at desc, id desc` is a stable newest-first order.
 */
export const ID_PREFIXES = {
  account: 'acc',
  contact: 'con',
  opportunity: 'opp',
  member: 'mem',
  note: 'note',
  task: 'task',
  meeting: 'mtg',
  list: 'lst',
  file: 'fil',
  record: 'rec',
  workspace: 'wks',
  apiKey: 'key',
  field: 'fld',
  relationship: 'rel',
  option: 'opt',
  event: 'evt',
  webhook: 'whk',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * ulid's own generator asks the OS for one random byte per character (16 calls per id, 3 % of a
 * create's CPU); this one hands out the same kind of bytes from a pool refilled 4 KiB at a time.
 */
const randomPool = Buffer.alloc(4096);
let randomOffset = randomPool.length;
function pooledRandomFraction(): number {
  if (randomOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  return randomPool[randomOffset++] / 256;
}

const nextUlid = monotonicFactory(pooledRandomFraction);
const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
const patterns = new Map<IdKind, RegExp>(
  (Object.keys(ID_PREFIXES) as IdKind[]).map((kind) => [kind, new RegExp(`^${ID_PREFIXES[kind]}_${ULID_PATTERN}$`)]),
);

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${nextUlid()}`;
}

/** True when `value` has the exact shape of an id of `kind`; checked before any query. */
export function isIdOf(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && patterns.get(kind)!.test(value);
}

const ANY_ID = new RegExp(`^(${Object.values(ID_PREFIXES).join('|')})_${ULID_PATTERN}$`);

/** True when `value` has the exact shape of an id of some kind. */
export function isAnyId(value: unknown): value is string {
  return typeof value === 'string' && ANY_ID.test(value);
}

/**
 * An id of `kind` for documentation examples: the right shape, so a reader sees what to paste,
 * and the same in every example, so the documents agree with each other.
 */
export function exampleIdOf(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_01JD6Y3Z8Q0N5V4W7X2C9B1A3E`;
}

import type { EntityEnvelopeDto } from '../../records/entity-envelope';
import type { FieldDefinition, ObjectTypeDefinition } from '../../records/object-type';
import type { SearchMatchDto } from './search.dto';

/** Characters of context a snippet keeps before and after what matched. */
const CONTEXT_BEFORE = 30;
const CONTEXT_AFTER = 70;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** What a query looks for in the text of a result, to show where it matched. */
export interface MatchTerms {
  /** Its words, unaccented and lowercased; each starts a word of the text, the last possibly a prefix. */
  words: string[];
  /** A substring of emails, hosts and other text, unaccented and lowercased, or null. */
  fragment: string | null;
  /** Digits that a telephone number holds, or null. */
  digits: string | null;
}

/** Text as the index compares it: without accents, in lower case; with where each of its characters came from. */
export function folded(text: string): { text: string; origins: number[] } {
  let result = '';
  const origins: number[] = [];
  let index = 0;
  for (const character of text) {
    const plain = character.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    result += plain;
    for (let i = 0; i < plain.length; i++) origins.push(index);
    index += character.length;
  }
  origins.push(index);
  return { text: result, origins };
}

/** The words of `q` as the search reads them. */
export function termsOf(q: string, fragment: string | null, digits: string | null): MatchTerms {
  const words = folded(q)
    .text.split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
  return { words, fragment, digits };
}

function snippetAround(text: string, start: number, end: number): string {
  const from = Math.max(0, start - CONTEXT_BEFORE);
  const to = Math.min(text.length, end + CONTEXT_AFTER);
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}

/** Where in `text` a term matches: [start, end) in `text`'s own characters, or undefined. */
function matchIn(text: string, terms: MatchTerms): [number, number] | undefined {
  const { text: plain, origins } = folded(text);
  const at = (start: number, length: number): [number, number] => [origins[start], origins[start + length]];
  for (const word of terms.words) {
    for (let start = plain.indexOf(word); start >= 0; start = plain.indexOf(word, start + 1)) {
      if (start === 0 || !WORD_CHARACTER.test(plain[start - 1])) return at(start, word.length);
    }
  }
  if (terms.fragment !== null) {
    const start = plain.indexOf(terms.fragment);
    if (start >= 0) return at(start, terms.fragment.length);
  }
  if (terms.digits !== null && text.replace(/\D/g, '').includes(terms.digits)) return [0, text.length];
  return undefined;
}

/** The string members of composite values, in the order a person writes them. */
const MEMBER_ORDER: Record<string, string[]> = {
  FULL_NAME: ['firstName', 'lastName'],
  ADDRESS: ['street', 'street2', 'city', 'state', 'postalCode', 'country'],
};

const SELECTS = new Set(['SINGLE_SELECT', 'MULTI_SELECT']);

/**
 * The text values of a field as the caller reads it: strings, list entries, a composite's string
 * members together, the labels of chosen options (the value holds their ids).
 */
function textsOf(value: unknown, valueType: string, field?: FieldDefinition): string[] {
  if (typeof value === 'string' && SELECTS.has(valueType)) {
    return [field?.typeConfiguration?.options?.find((option) => option.id === value)?.label ?? value];
  }
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap((entry) => textsOf(entry, valueType, field));
  if (value !== null && typeof value === 'object') {
    const members = (MEMBER_ORDER[valueType] ?? Object.keys(value))
      .map((name) => (value as Record<string, unknown>)[name])
      .filter((member): member is string => typeof member === 'string');
    return members.length > 0 ? [members.join(' ')] : [];
  }
  return [];
}

const NAME_FIELDS = new Set(['$title', '$name']);

/**
 * Where the result matched: each of the `matched` fields (SearchRepository.matchedFields) with a
 * snippet of its text around what matched, read from the entity as this caller receives it, so a
 * snippet never shows what the caller's view of it hides (a redacted meeting's fields read null).
 * A result that no field matched (found by a name close to the query, a typo, or by a transcript)
 * shows its names.
 */
export function matchesIn(
  entity: EntityEnvelopeDto,
  type: ObjectTypeDefinition,
  matched: ReadonlySet<string>,
  terms: MatchTerms,
): SearchMatchDto[] {
  const definitions = new Map(type.fields.map((field) => [field.key, field]));
  const matches: SearchMatchDto[] = [];
  for (const [field, { value, valueType }] of Object.entries(entity.fields)) {
    if (!matched.has(field)) continue;
    const texts = textsOf(value, valueType, definitions.get(field));
    if (texts.length === 0) continue;
    const found = texts.map((text) => [text, matchIn(text, terms)] as const).find(([, at]) => at !== undefined);
    matches.push({ field, snippet: found ? snippetAround(found[0], ...found[1]!) : snippetAround(texts[0], 0, 0) });
  }
  if (matches.length > 0) return matches;
  return Object.entries(entity.fields)
    .filter(
      ([field, { value, valueType }]) =>
        (NAME_FIELDS.has(field) || valueType === 'FULL_NAME') && textsOf(value, valueType).length > 0,
    )
    .map(([field, { value, valueType }]) => ({
      field,
      snippet: snippetAround(textsOf(value, valueType).join(' '), 0, 0),
    }));
}

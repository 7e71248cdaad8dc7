import { ApiError } from '../../common/errors/api-error';
import { storable } from '../../common/validation/storable-text';

/** Shared write-side checks of the field types (docs/api.md §7). */
export const MAX_ITEMS = 100;
export const MAX_TEXT_LENGTH = 10_000;

const SURROGATE_PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
/** Length in characters (code points, as PostgreSQL counts), not UTF-16 units. */
function characterCount(text: string): number {
  return text.length - (text.match(SURROGATE_PAIRS)?.length ?? 0);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export interface StringRules {
  max?: number;
  trim?: boolean;
}

/** A string (else 400 invalid_type) of at most `max` characters and storable (else 422). */
export function expectString(
  value: unknown,
  param: string,
  { max = MAX_TEXT_LENGTH, trim = false }: StringRules = {},
): string {
  if (typeof value !== 'string') throw ApiError.invalidType(param, 'a string');
  const text = trim ? value.trim() : value;
  if (text.length > max && characterCount(text) > max) {
    throw ApiError.invalidValue(param, `${param} must be at most ${max} characters`);
  }
  if (!storable(text)) throw ApiError.invalidValue(param, `${param} contains NUL or unpaired surrogate characters`);
  return text;
}

/** A finite JSON number (else 400 invalid_type; NaN/Infinity, impossible in JSON, 422). */
export function expectNumber(value: unknown, param: string): number {
  if (typeof value !== 'number') throw ApiError.invalidType(param, 'a number');
  if (!Number.isFinite(value)) throw ApiError.invalidValue(param, `${param} must be a finite number`);
  return value;
}

/** An array (else 400 invalid_type) of at most 100 items (else 422 invalid_value). */
export function expectItems(value: unknown, param: string, expected = 'an array'): unknown[] {
  if (!Array.isArray(value)) throw ApiError.invalidType(param, expected);
  if (value.length > MAX_ITEMS) throw ApiError.invalidValue(param, `${param} must have at most ${MAX_ITEMS} items`);
  return value;
}

export function invalidFilter(param: string, message: string): ApiError {
  return new ApiError(400, 'invalid_filter', message, param);
}

/** A raw query-string value that can be bound as a PostgreSQL text parameter. */
export function filterText(raw: string, param: string): string {
  if (!storable(raw)) throw invalidFilter(param, `${param} contains NUL or unpaired surrogate characters`);
  return raw;
}

const NUMBER_LITERAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A decimal literal as a finite number, else undefined (`''`, `0x10`, `1e400` are refused). */
export function parseNumberLiteral(raw: string): number | undefined {
  const text = raw.trim();
  const value = Number(text);
  return NUMBER_LITERAL.test(text) && Number.isFinite(value) ? value : undefined;
}

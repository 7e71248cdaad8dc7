import type { FilterOperator, SqlParameters } from './field-type';

/**
 * SQL building blocks of the filters. User input only ever reaches SQL through `params.add`; the
 * field key is asserted to be an identifier-like key and then quoted as a string literal.
 */
const SAFE_KEY = /^\$?[a-zA-Z][a-zA-Z0-9_]*$/;

export function keyLiteral(key: string): string {
  if (!SAFE_KEY.test(key)) throw new Error(`Refusing to build SQL for the field key ${JSON.stringify(key)}`);
  return `'${key}'`;
}

/** One stored JSON value as SQL: `json` is the jsonb expression, `text` its text (`->>` form). */
export interface JsonSql {
  json: string;
  text: string;
}

/** `fields -> key` and `fields ->> key`: the forms that expression indexes on `fields` match. */
export function member(jsonb: string, key: string): JsonSql {
  const literal = keyLiteral(key);
  return { json: `(${jsonb} -> ${literal})`, text: `(${jsonb} ->> ${literal})` };
}

/** Two-valued (never NULL) type test of a jsonb value: false when absent or JSON null. */
export function isJsonType(json: string, type: 'string' | 'number' | 'boolean'): string {
  return `COALESCE(jsonb_typeof(${json}) = '${type}', false)`;
}

/** `fields @> $n::jsonb`: served by a GIN (jsonb_path_ops) index on `fields`. */
export function containsJson(fieldsColumn: string, document: unknown, params: SqlParameters): string {
  return `${fieldsColumn} @> ${params.add(JSON.stringify(document))}::jsonb`;
}

/** Escapes LIKE wildcards for PostgreSQL's default escape character, the backslash. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** A case-sensitive prefix match on a string value (a text_pattern_ops index can serve it). */
export function startsWithSql(value: JsonSql, placeholder: string): string {
  return `(${isJsonType(value.json, 'string')} AND ${value.text} LIKE ${placeholder})`;
}

/** A substring match on a string value; `pattern` is bound as `%…%`. */
export function containsTextSql(value: JsonSql, placeholder: string, caseInsensitive: boolean): string {
  return `(${isJsonType(value.json, 'string')} AND ${value.text} ${caseInsensitive ? 'ILIKE' : 'LIKE'} ${placeholder})`;
}

export const COMPARISONS: Partial<Record<FilterOperator, string>> = {
  equal: '=',
  greaterThan: '>',
  greaterThanOrEqual: '>=',
  lessThan: '<',
  lessThanOrEqual: '<=',
};

/** Numeric comparison that never casts a non-number (CASE fixes the evaluation order). */
export function compareNumberSql(value: JsonSql, sqlOperator: string, placeholder: string): string {
  const comparison = `${value.text}::numeric ${sqlOperator} ${placeholder}::numeric`;
  return `(CASE WHEN jsonb_typeof(${value.json}) = 'number' THEN ${comparison} ELSE false END)`;
}

/** Byte-wise text comparison (normalised UTC ISO timestamps sort lexically). */
export function compareTextSql(value: JsonSql, sqlOperator: string, placeholder: string): string {
  return `(${isJsonType(value.json, 'string')} AND ${value.text} COLLATE "C" ${sqlOperator} ${placeholder})`;
}

/**
 * True when any element of a multiple-valued field satisfies `predicate`; a scalar stored before
 * the field became multiple-valued counts as one element.
 */
export function anyElementSql(value: JsonSql, predicate: (element: JsonSql) => string): string {
  const array = `CASE WHEN jsonb_typeof(${value.json}) = 'array' THEN ${value.json} ELSE jsonb_build_array(${value.json}) END`;
  const element = predicate({ json: 'field_element.v', text: `(field_element.v #>> '{}')` });
  return `EXISTS (SELECT 1 FROM jsonb_array_elements(${array}) AS field_element(v) WHERE ${element})`;
}

/** `startsWith` on string values, the pattern bound once. */
export function prefixPredicate(raw: string, params: SqlParameters): (value: JsonSql) => string {
  const placeholder = params.add(`${escapeLike(raw)}%`);
  return (value) => startsWithSql(value, placeholder);
}

/** `contains` on string values: a substring match, the `%…%` pattern bound once. */
export function containsPredicate(
  raw: string,
  params: SqlParameters,
  caseInsensitive: boolean,
): (value: JsonSql) => string {
  const placeholder = params.add(`%${escapeLike(raw)}%`);
  return (value) => containsTextSql(value, placeholder, caseInsensitive);
}

import type { FieldDefinition } from '../object-type';
import type { ValueType } from '../value-types';

export const FILTER_OPERATORS = [
  'equal',
  'contains',
  'startsWith',
  'greaterThan',
  'greaterThanOrEqual',
  'lessThan',
  'lessThanOrEqual',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** Collects bind parameters for one SQL statement; `add` returns the placeholder (`$3`). */
export interface SqlParameters {
  add(value: unknown): string;
}

/** The bind parameters of one statement, in the order they were added. */
export class SqlParameterList implements SqlParameters {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** An OpenAPI 3.0 schema object (kept loose: the registry has no @nestjs/swagger import). */
export type OpenApiSchema = Record<string, unknown>;

/**
 * Everything that depends on a value type, in one place (architecture: field-type registry).
 * No NestJS or TypeORM imports: errors are thrown as ApiError from src/common/errors/api-error.
 */
export interface FieldType {
  valueType: ValueType;
  /**
   * Validates and normalises a write value (never null/undefined: the caller handles clearing).
   * Returns the JSON value to store in the record's `fields` jsonb. `param` names the input in
   * errors (e.g. `fields.$title`). Wrong JSON type or a value outside an option set → 400
   * `invalid_type`; well-typed but refused (bad email, URL, phone, date, length, range) → 422
   * `invalid_value`.
   */
  write(value: unknown, field: FieldDefinition, param: string): unknown;
  /** The `value` of the read shape `{ value, valueType }` for a stored value (never undefined). */
  read(stored: unknown, field: FieldDefinition): unknown;
  /**
   * What `read` returns, whatever the field: the `value` of this type's variant of a field value
   * read back (FieldValueDto), which admits null besides, as an unset field reads.
   */
  readValue: OpenApiSchema;
  /**
   * A definition refuses `typeConfiguration.multipleValues` for this type: a field value is never
   * an array of numbers or booleans (spec: Field value).
   */
  singleValued?: boolean;
  /** Allowed filter operators; empty when the type is not filterable. */
  operators: readonly FilterOperator[];
  /** The operator used when a filter names none (`equal` where allowed, else `contains`). */
  defaultOperator?: FilterOperator;
  /**
   * SQL boolean expression for `fields -> key <operator> raw`, where `fieldsColumn` is the SQL of
   * the jsonb column (e.g. `r.fields`) and `raw` the query-string value. Invalid raw values for the
   * type → 400 `invalid_filter` with `param`. Only called with an operator from `operators`.
   * Must not match unset values (negation is added by the caller).
   */
  filterSql(
    fieldsColumn: string,
    field: FieldDefinition,
    operator: FilterOperator,
    raw: string,
    params: SqlParameters,
    param: string,
  ): string;
  /** The write schema of the field in OpenAPI 3.0. */
  openApi(field: FieldDefinition): OpenApiSchema;
  /**
   * For a type whose value is an object (ADDRESS, FULL_NAME), its write schema whatever the field:
   * the document of a custom field of a record body, whose type it cannot know, offers it beside
   * the JSON scalars and string arrays of the other types.
   */
  objectValue?: OpenApiSchema;
}

/**
 * `schema` admitting null too. OpenAPI 3.0's `nullable` needs a `type` beside it, so a `oneOf`
 * admits null through its first alternative (which alone then matches null).
 */
export function orNull(schema: OpenApiSchema): OpenApiSchema {
  if (schema.type !== undefined) return { ...schema, nullable: true };
  const alternatives = schema.oneOf as OpenApiSchema[] | undefined;
  if (alternatives?.length) return { ...schema, oneOf: [orNull(alternatives[0]), ...alternatives.slice(1)] };
  return schema;
}

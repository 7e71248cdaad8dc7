import { ApiError } from '../../common/errors/api-error';
import type { FieldType, FilterOperator, OpenApiSchema, SqlParameters } from './field-type';
import type { FieldDefinition } from '../object-type';
import type { ValueType } from '../value-types';
import { anyElementSql, containsJson, member } from './sql';
import type { JsonSql } from './sql';
import { expectItems, filterText, invalidFilter, MAX_ITEMS } from './values';

/** What a scalar value type defines; multiple values, operator checks and SQL shapes are shared. */
export interface ScalarSpec {
  valueType: ValueType;
  /** Validates and normalises one value (an element of a multiple-valued field). */
  normalise(value: unknown, param: string, field: FieldDefinition): unknown;
  /** The write schema of one value. */
  schema(field: FieldDefinition): OpenApiSchema;
  /** One value as stored and read, whatever the field (what only a write checks left out). */
  readSchema: OpenApiSchema;
  /** See FieldType.singleValued: then a read is never an array either. */
  singleValued?: boolean;
  operators: readonly FilterOperator[];
  /** `equal`: the normalised JSON value a raw filter value stands for (matched by containment). */
  equalValue?(raw: string, field: FieldDefinition, param: string): unknown;
  /** Other operators: a predicate on one stored value. Throws 400 invalid_filter for a bad raw. */
  predicate?(operator: FilterOperator, raw: string, params: SqlParameters, param: string): (value: JsonSql) => string;
}

export function isMultiple(field: FieldDefinition): boolean {
  return field.typeConfiguration?.multipleValues === true;
}

export function defaultOperatorOf(operators: readonly FilterOperator[]): FilterOperator | undefined {
  return operators.includes('equal') ? 'equal' : operators.includes('contains') ? 'contains' : undefined;
}

export function assertOperator(type: FieldType, field: FieldDefinition, operator: FilterOperator, param: string): void {
  if (!type.operators.includes(operator)) {
    throw invalidFilter(param, `${field.key} (${type.valueType}) does not allow the operator ${operator}`);
  }
}

/**
 * A scalar value type. With `typeConfiguration.multipleValues` the write value may be one value
 * (wrapped) or an array of at most 100 (each checked, param `fields.x[3]`), stored as an array, and
 * a filter matches when any element matches.
 */
export function scalarFieldType(spec: ScalarSpec): FieldType {
  const type: FieldType = {
    valueType: spec.valueType,
    operators: spec.operators,
    defaultOperator: defaultOperatorOf(spec.operators),
    write(value, field, param) {
      if (!isMultiple(field)) {
        if (Array.isArray(value)) throw ApiError.invalidType(param, 'a single value, not an array');
        return spec.normalise(value, param, field);
      }
      if (!Array.isArray(value)) return [spec.normalise(value, param, field)];
      return expectItems(value, param).map((item, index) => spec.normalise(item, `${param}[${index}]`, field));
    },
    read(stored, field) {
      // Tolerant of values stored before `multipleValues` changed: the shape follows the definition.
      if (!Array.isArray(stored)) return isMultiple(field) ? [stored] : stored;
      const items = stored as unknown[];
      return isMultiple(field) ? items : (items[0] ?? null);
    },
    readValue: spec.singleValued
      ? spec.readSchema
      : {
          oneOf: [spec.readSchema, { type: 'array', items: spec.readSchema }],
          description: 'One value, or an array of them when the field has `typeConfiguration.multipleValues`',
        },
    singleValued: spec.singleValued,
    filterSql(fieldsColumn, field, operator, raw, params, param) {
      assertOperator(type, field, operator, param);
      filterText(raw, param);
      const value = member(fieldsColumn, field.key);
      if (operator === 'equal' && spec.equalValue) {
        const expected = spec.equalValue(raw, field, param);
        if (!isMultiple(field)) return containsJson(fieldsColumn, { [field.key]: expected }, params);
        const inArray = containsJson(fieldsColumn, { [field.key]: [expected] }, params);
        return `(${inArray} OR ${containsJson(fieldsColumn, { [field.key]: expected }, params)})`;
      }
      if (!spec.predicate) throw invalidFilter(param, `${field.key} does not allow the operator ${operator}`);
      const predicate = spec.predicate(operator, raw, params, param);
      return isMultiple(field) ? anyElementSql(value, predicate) : predicate(value);
    },
    openApi(field) {
      const single = spec.schema(field);
      return isMultiple(field) ? { oneOf: [single, { type: 'array', items: single, maxItems: MAX_ITEMS }] } : single;
    },
  };
  return type;
}

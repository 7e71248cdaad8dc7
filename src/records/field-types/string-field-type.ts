import type { FieldType, OpenApiSchema } from './field-type';
import type { ValueType } from '../value-types';
import { scalarFieldType } from './scalar-field-type';
import { prefixPredicate } from './sql';
import { expectString } from './values';

export interface StringTypeOptions {
  valueType: ValueType;
  max: number;
  /** Surrounding whitespace is dropped on write and from an `equal` filter value. */
  trim?: boolean;
  /** `equal` and `startsWith` (TEXT, SOCIAL_HANDLE); none for MARKDOWN. */
  filterable: boolean;
  schema?: OpenApiSchema;
}

/** TEXT, MARKDOWN and SOCIAL_HANDLE: a string of bounded length. */
export function stringFieldType({ valueType, max, trim = false, filterable, schema }: StringTypeOptions): FieldType {
  return scalarFieldType({
    valueType,
    normalise: (value, param) => expectString(value, param, { max, trim }),
    schema: (field) => ({ type: 'string', maxLength: max, example: field.label, ...schema }),
    readSchema: { type: 'string' },
    operators: filterable ? ['equal', 'startsWith'] : [],
    equalValue: (raw) => (trim ? raw.trim() : raw),
    predicate: (_operator, raw, params) => prefixPredicate(raw, params),
  });
}

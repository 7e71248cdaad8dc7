import type { FieldDefinition } from '../object-type';
import type { FieldType, OpenApiSchema } from './field-type';
import { scalarFieldType } from './scalar-field-type';
import { COMPARISONS, compareNumberSql } from './sql';
import { expectNumber, invalidFilter, parseNumberLiteral } from './values';

const NUMBER_OPERATORS = ['equal', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'] as const;

function filterNumber(raw: string, param: string): number {
  const value = parseNumberLiteral(raw);
  if (value === undefined) throw invalidFilter(param, `${param} must be a finite number`);
  return value;
}

/** A finite JSON number stored as a JSON number (NUMBER, CURRENCY). */
export function numericFieldType(
  valueType: 'NUMBER' | 'CURRENCY',
  schema: (field: FieldDefinition) => OpenApiSchema,
): FieldType {
  return scalarFieldType({
    valueType,
    normalise: (value, param) => expectNumber(value, param),
    schema,
    readSchema: { type: 'number' },
    singleValued: true,
    operators: NUMBER_OPERATORS,
    equalValue: (raw, _field, param) => filterNumber(raw, param),
    predicate: (operator, raw, params, param) => {
      const placeholder = params.add(String(filterNumber(raw, param)));
      return (value) => compareNumberSql(value, COMPARISONS[operator]!, placeholder);
    },
  });
}

/** NUMBER: a finite number. Filters: equal and the four comparisons. */
export const numberFieldType = numericFieldType('NUMBER', () => ({ type: 'number', example: 42 }));

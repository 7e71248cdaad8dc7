import type { FieldType } from './field-type';
import { expectOption, optionSchema } from './options';
import { invalidFilter, MAX_ITEMS, expectItems } from './values';

/**
 * MULTI_SELECT: an array (at most 100) of option ids or labels, stored as the option ids,
 * deduplicated in first-seen order. Always an array: `multipleValues` does not apply. Not filterable.
 */
export const multiSelectFieldType: FieldType = {
  valueType: 'MULTI_SELECT',
  operators: [],
  write(value, field, param) {
    const items = expectItems(value, param, 'an array of option ids or labels');
    return [...new Set(items.map((item, index) => expectOption(field, item, `${param}[${index}]`)))];
  },
  read: (stored) => (Array.isArray(stored) ? (stored as unknown[]) : [stored]),
  readValue: { type: 'array', items: { type: 'string' }, description: 'Option ids' },
  filterSql(_fieldsColumn, field, operator, _raw, _params, param) {
    throw invalidFilter(param, `${field.key} (MULTI_SELECT) does not allow the operator ${operator}`);
  },
  openApi: (field) => ({ type: 'array', items: optionSchema(field), maxItems: MAX_ITEMS }),
};

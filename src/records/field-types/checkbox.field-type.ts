import { ApiError } from '../../common/errors/api-error';
import { scalarFieldType } from './scalar-field-type';
import { invalidFilter } from './values';

/** CHECKBOX: a JSON boolean. Filter: equal (`true` or `false`). */
export const checkboxFieldType = scalarFieldType({
  valueType: 'CHECKBOX',
  normalise: (value, param) => {
    if (typeof value !== 'boolean') throw ApiError.invalidType(param, 'a boolean');
    return value;
  },
  schema: () => ({ type: 'boolean', example: true }),
  readSchema: { type: 'boolean' },
  singleValued: true,
  operators: ['equal'],
  equalValue: (raw, _field, param) => {
    if (raw !== 'true' && raw !== 'false') throw invalidFilter(param, `${param} must be true or false`);
    return raw === 'true';
  },
});

import { scalarFieldType } from './scalar-field-type';
import { expectOption, optionIdOf, optionSchema } from './options';
import { invalidFilter } from './values';

/** SINGLE_SELECT: an option id or label, stored and read as the option id. Filter: equal. */
export const singleSelectFieldType = scalarFieldType({
  valueType: 'SINGLE_SELECT',
  normalise: (value, param, field) => expectOption(field, value, param),
  schema: optionSchema,
  readSchema: { type: 'string', description: 'An option id' },
  operators: ['equal'],
  equalValue: (raw, field, param) => {
    const id = optionIdOf(field, raw);
    if (id === undefined) throw invalidFilter(param, `${param} must be an option id or label of ${field.key}`);
    return id;
  },
});

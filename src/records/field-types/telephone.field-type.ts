import { ApiError } from '../../common/errors/api-error';
import { scalarFieldType } from './scalar-field-type';
import { containsPredicate } from './sql';
import { expectString, invalidFilter } from './values';

const E164 = /^\+[1-9]\d{7,14}$/;

/**
 * The E.164 form of a number written in international format, else undefined. Drops spaces,
 * dots, dashes and parentheses (and a `(0)` trunk prefix, as in `+44 (0)20 7946 0958`), and reads
 * a leading `00` as `+`. A pragmatic normaliser: no per-country numbering plan is checked.
 */
export function toE164(text: string): string | undefined {
  const compact = text
    .replace(/\(0\)/g, '')
    .replace(/[\s.()\-\u2010-\u2015]/g, '')
    .replace(/^00/, '+');
  return E164.test(compact) ? compact : undefined;
}

/** TELEPHONE: normalised to E.164. Filter: contains, comparing digits only. */
export const telephoneFieldType = scalarFieldType({
  valueType: 'TELEPHONE',
  normalise: (value, param) => {
    const e164 = toE164(expectString(value, param, { max: 64, trim: true }));
    if (!e164) {
      throw ApiError.invalidValue(
        param,
        `${param} must be a telephone number in international format, e.g. +14155550100`,
      );
    }
    return e164;
  },
  schema: () => ({
    type: 'string',
    maxLength: 64,
    description: 'International format; stored as E.164',
    example: '+14155550100',
  }),
  readSchema: { type: 'string', description: 'E.164' },
  operators: ['contains'],
  predicate: (_operator, raw, params, param) => {
    // A complete number (`0044 20…`, `+1 (415)…`) is first normalised, so its `00` is not searched.
    const digits = (toE164(raw) ?? raw).replace(/\D/g, '');
    if (!digits) throw invalidFilter(param, `${param} must contain digits`);
    return containsPredicate(digits, params, false);
  },
});

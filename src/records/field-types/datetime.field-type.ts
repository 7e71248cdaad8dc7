import { ApiError } from '../../common/errors/api-error';
import { scalarFieldType } from './scalar-field-type';
import { COMPARISONS, compareTextSql } from './sql';
import { expectString, invalidFilter } from './values';

// Date, `T`, hours and minutes, optional seconds and fraction, then `Z` or an offset (±HH:MM or ±HHMM).
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:[Zz]|([+-])(\d{2}):?(\d{2}))$/;

/**
 * An ISO 8601 date-time with `Z` or an offset as the UTC ISO string with milliseconds
 * (`2026-01-02T01:04:05.000Z`), else undefined: no offset, an impossible date or time, or a
 * year that leaves 0000..9999 in UTC (so that stored values sort lexically).
 */
export function parseDateTime(text: string): string | undefined {
  const match = ISO_8601.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 9, 10].map((i) =>
    Number(match[i] ?? 0),
  );
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC, which maps years 0..99 to 1900..1999
  date.setUTCHours(hour, minute, second, Number((match[7] ?? '').slice(0, 3).padEnd(3, '0')));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  const offset = (match[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const utc = new Date(date.getTime() - offset * 60_000).toISOString();
  return /^\d{4}-/.test(utc) ? utc : undefined;
}

function filterDateTime(raw: string, param: string): string {
  // A `+` that was not percent-encoded in the query string arrives as a space: read it as `+`.
  const value = parseDateTime(raw.trim().replace(/ (\d{2}:?\d{2})$/, '+$1'));
  if (!value) throw invalidFilter(param, `${param} must be an ISO 8601 date-time with an offset or Z`);
  return value;
}

/**
 * DATETIME: an ISO 8601 date-time with offset, stored as a UTC ISO string with milliseconds, which
 * sorts lexically: comparisons are byte-wise text comparisons (`COLLATE "C"`), equality containment.
 */
export const datetimeFieldType = scalarFieldType({
  valueType: 'DATETIME',
  normalise: (value, param) => {
    const utc = parseDateTime(expectString(value, param, { max: 64, trim: true }));
    if (!utc) {
      throw ApiError.invalidValue(
        param,
        `${param} must be an ISO 8601 date-time with an offset or Z, e.g. 2026-01-02T03:04:05Z`,
      );
    }
    return utc;
  },
  schema: () => ({ type: 'string', format: 'date-time', example: '2026-01-02T03:04:05Z' }),
  readSchema: { type: 'string', format: 'date-time', description: 'UTC, with milliseconds' },
  operators: ['equal', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'],
  equalValue: (raw, _field, param) => filterDateTime(raw, param),
  predicate: (operator, raw, params, param) => {
    const placeholder = params.add(filterDateTime(raw, param));
    return (value) => compareTextSql(value, COMPARISONS[operator]!, placeholder);
  },
});

import { ApiError } from '../../common/errors/api-error';
import { scalarFieldType } from './scalar-field-type';
import { containsPredicate } from './sql';
import { expectString } from './values';

export const MAX_URL_LENGTH = 2048;

function isWebUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text) || /\s/.test(text)) return false;
  try {
    return new URL(text).hostname !== '';
  } catch {
    return false;
  }
}

/**
 * URL: an absolute http(s) URL of at most 2048 characters, stored trimmed but otherwise as written
 * (not re-serialised by `new URL`, which would add slashes and encode). Filter: contains
 * (case-insensitive substring).
 */
export const urlFieldType = scalarFieldType({
  valueType: 'URL',
  normalise: (value, param) => {
    const url = expectString(value, param, { max: MAX_URL_LENGTH, trim: true });
    if (!isWebUrl(url)) throw ApiError.invalidValue(param, `${param} must be an absolute http or https URL`);
    return url;
  },
  schema: () => ({ type: 'string', format: 'uri', maxLength: MAX_URL_LENGTH, example: 'https://example.com' }),
  readSchema: { type: 'string' },
  operators: ['contains'],
  predicate: (_operator, raw, params) => containsPredicate(raw, params, true),
});

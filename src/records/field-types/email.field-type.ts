import { ApiError } from '../../common/errors/api-error';
import { scalarFieldType } from './scalar-field-type';
import { containsPredicate } from './sql';
import { expectString } from './values';

export const MAX_EMAIL_LENGTH = 320;
// Pragmatic: one @, a non-empty local part, a domain of non-empty dot-separated labels, no spaces.
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

/**
 * EMAIL: trimmed and syntax-checked, stored with the WHOLE address lowercased (mail systems treat
 * local parts case-insensitively in practice; this keeps `unique` and filters consistent).
 * Filter: contains (case-insensitive substring).
 */
export const emailFieldType = scalarFieldType({
  valueType: 'EMAIL',
  normalise: (value, param) => {
    const email = expectString(value, param, { max: MAX_EMAIL_LENGTH, trim: true });
    if (!EMAIL.test(email)) throw ApiError.invalidValue(param, `${param} must be an email address`);
    return email.toLowerCase();
  },
  schema: () => ({ type: 'string', format: 'email', maxLength: MAX_EMAIL_LENGTH, example: 'ada@example.com' }),
  readSchema: { type: 'string', description: 'Lowercased' },
  operators: ['contains'],
  predicate: (_operator, raw, params) => containsPredicate(raw, params, true),
});

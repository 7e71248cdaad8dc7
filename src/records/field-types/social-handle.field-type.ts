import { stringFieldType } from './string-field-type';
import { MAX_TEXT_LENGTH } from './values';

/**
 * SOCIAL_HANDLE: a handle (`@ada`) or a profile URL, trimmed; `typeConfiguration.handleService`
 * is informative only (no per-service syntax is enforced). Filters: equal, startsWith.
 */
export const socialHandleFieldType = stringFieldType({
  valueType: 'SOCIAL_HANDLE',
  max: MAX_TEXT_LENGTH,
  trim: true,
  filterable: true,
  schema: { description: 'A handle or a profile URL', example: '@ada' },
});

import { stringFieldType } from './string-field-type';
import { MAX_TEXT_LENGTH } from './values';

/** TEXT: a string of at most 10,000 characters, stored as given. Filters: equal, startsWith. */
export const textFieldType = stringFieldType({ valueType: 'TEXT', max: MAX_TEXT_LENGTH, filterable: true });

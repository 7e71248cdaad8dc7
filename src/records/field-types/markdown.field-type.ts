import { stringFieldType } from './string-field-type';

export const MAX_MARKDOWN_LENGTH = 1_000_000;

/** MARKDOWN: a string of at most 1,000,000 characters, stored as given. Not filterable. */
export const markdownFieldType = stringFieldType({
  valueType: 'MARKDOWN',
  max: MAX_MARKDOWN_LENGTH,
  filterable: false,
  schema: { description: 'Markdown text', example: 'Written in **Markdown**' },
});

/** The 14 value types of the spec's field value. */
export const VALUE_TYPES = [
  'ADDRESS',
  'CHECKBOX',
  'CURRENCY',
  'DATETIME',
  'EMAIL',
  'FULL_NAME',
  'MARKDOWN',
  'MULTI_SELECT',
  'NUMBER',
  'SINGLE_SELECT',
  'SOCIAL_HANDLE',
  'TELEPHONE',
  'TEXT',
  'URL',
] as const;

export type ValueType = (typeof VALUE_TYPES)[number];

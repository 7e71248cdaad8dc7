import type { FieldType, OpenApiSchema } from './field-type';
import type { ValueType } from '../value-types';
import { addressFieldType } from './address.field-type';
import { checkboxFieldType } from './checkbox.field-type';
import { currencyFieldType } from './currency.field-type';
import { datetimeFieldType } from './datetime.field-type';
import { emailFieldType } from './email.field-type';
import { fullNameFieldType } from './full-name.field-type';
import { markdownFieldType } from './markdown.field-type';
import { multiSelectFieldType } from './multi-select.field-type';
import { numberFieldType } from './number.field-type';
import { singleSelectFieldType } from './single-select.field-type';
import { socialHandleFieldType } from './social-handle.field-type';
import { telephoneFieldType } from './telephone.field-type';
import { textFieldType } from './text.field-type';
import { urlFieldType } from './url.field-type';

/** The field-type registry (architecture: everything that switches on a value type goes here). */
export const FIELD_TYPES: Readonly<Record<ValueType, FieldType>> = Object.freeze({
  ADDRESS: addressFieldType,
  CHECKBOX: checkboxFieldType,
  CURRENCY: currencyFieldType,
  DATETIME: datetimeFieldType,
  EMAIL: emailFieldType,
  FULL_NAME: fullNameFieldType,
  MARKDOWN: markdownFieldType,
  MULTI_SELECT: multiSelectFieldType,
  NUMBER: numberFieldType,
  SINGLE_SELECT: singleSelectFieldType,
  SOCIAL_HANDLE: socialHandleFieldType,
  TELEPHONE: telephoneFieldType,
  TEXT: textFieldType,
  URL: urlFieldType,
});

/** The write schemas of the values that are objects (ADDRESS, FULL_NAME). */
export function objectValueSchemas(): OpenApiSchema[] {
  return Object.values(FIELD_TYPES).flatMap((fieldType) => (fieldType.objectValue ? [fieldType.objectValue] : []));
}

export function fieldTypeOf(valueType: ValueType): FieldType {
  if (!Object.hasOwn(FIELD_TYPES, valueType)) throw new Error(`Unknown value type ${String(valueType)}`);
  return FIELD_TYPES[valueType];
}

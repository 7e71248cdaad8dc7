import type { OpenAPIObject } from '@nestjs/swagger';
import { orNull } from './field-types/field-type';
import type { OpenApiSchema } from './field-types/field-type';
import { FIELD_TYPES } from './field-types/registry';
import { FieldValueDto } from './entity-envelope';
import type { ValueType } from './value-types';

/** `FULL_NAME` → `FullNameFieldValueDto`. */
function variantNameOf(valueType: ValueType): string {
  const words = valueType.toLowerCase().split('_');
  return `${words.map((word) => word[0].toUpperCase() + word.slice(1)).join('')}FieldValueDto`;
}

/**
 * The schema of a field value read back (FieldValueDto) as a union discriminated by `valueType`,
 * with one component per value type of the registry whose `value` is what that type reads, so a
 * client that checks `valueType` knows the value's shape. No decorator can make a component a
 * `oneOf`, so the document Nest built is given these in place of the class's empty one.
 */
export function documentFieldValues(document: OpenAPIObject): void {
  const variants = Object.values(FIELD_TYPES).map((fieldType): [ValueType, string, OpenApiSchema] => [
    fieldType.valueType,
    variantNameOf(fieldType.valueType),
    {
      type: 'object',
      required: ['value', 'valueType'],
      properties: {
        value: {
          ...orNull(fieldType.readValue),
          description: [fieldType.readValue.description, 'null when unset'].filter(Boolean).join('; '),
        },
        valueType: { type: 'string', enum: [fieldType.valueType] },
      },
    },
  ]);
  const refOf = (name: string) => `#/components/schemas/${name}`;
  document.components!.schemas = {
    ...document.components!.schemas,
    ...Object.fromEntries(variants.map(([, name, schema]) => [name, schema])),
    [FieldValueDto.name]: {
      oneOf: variants.map(([, name]) => ({ $ref: refOf(name) })),
      discriminator: {
        propertyName: 'valueType',
        mapping: Object.fromEntries(variants.map(([valueType, name]) => [valueType, refOf(name)])),
      },
      description: 'A field value as `valueType` says: its `value` is that type’s, null when unset',
    },
  };
}

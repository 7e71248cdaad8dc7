import { exampleIdOf } from '../common/ids';
import type { BodyExample } from '../common/openapi/api-json-body';
import { fieldTypeOf, objectValueSchemas } from './field-types/registry';
import { MAX_ITEMS } from './field-types/values';
import { orNull } from './field-types/field-type';
import type { OpenApiSchema } from './field-types/field-type';
import { RELATIONSHIP_OPERATIONS } from './object-type';
import type { FieldDefinition, ObjectTypeDefinition, RelationshipDefinition, RelationshipOperation } from './object-type';
import { idKindOf } from './record-ids';
import { MAX_RELATIONSHIP_IDS_PER_REQUEST } from './record-write';

const identity = (schema: OpenApiSchema) => schema;

const writableFields = (type: ObjectTypeDefinition): FieldDefinition[] => type.fields.filter((field) => !field.readOnly);

const writableRelationships = (type: ObjectTypeDefinition, isCreate: boolean): RelationshipDefinition[] =>
  type.relationships.filter((r) => !r.readOnly && (isCreate || !r.createOnly));

const ID_OR_IDS: OpenApiSchema = {
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: MAX_RELATIONSHIP_IDS_PER_REQUEST }],
  description: 'An id or an array of ids (at most 25 ids per request, over all relationships)',
};

/** A required relationship's ids on create: an empty array leaves it missing. */
const SOME_IDS: OpenApiSchema = {
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_RELATIONSHIP_IDS_PER_REQUEST }],
};

/**
 * A value of a custom field, whose type only the workspace knows: whatever a field type takes (a
 * string, a number, a boolean, an array of strings, an object of ADDRESS or FULL_NAME), or null.
 * One component, which every type's bodies refer to (documentRecordWrites).
 */
const CUSTOM_FIELD_VALUE_NAME = 'CustomFieldValue';
const CUSTOM_FIELD_VALUE: OpenApiSchema = {
  anyOf: [
    { type: 'string', nullable: true },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: { type: 'string' }, maxItems: MAX_ITEMS },
    ...objectValueSchemas(),
  ],
  description: 'A custom field: its value type is in GET …/definitions',
};

/** Adds the components the record bodies refer to. */
export function documentRecordWrites(document: { components?: { schemas?: Record<string, unknown> } }): void {
  document.components = { ...document.components, schemas: { ...document.components?.schemas, [CUSTOM_FIELD_VALUE_NAME]: CUSTOM_FIELD_VALUE } };
}

/** What an update asks of one relationship: the type's operations, each an id or ids. */
function linkChangeSchema(operations: readonly RelationshipOperation[]): OpenApiSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(operations.map((operation) => [operation, ID_OR_IDS])),
  };
}

/**
 * The OpenAPI schema of a create or update body of a type, built from its definitions and the
 * registry's field fragments, closed as readRecordWrite is. The workspace's custom fields and
 * relationships are not known to a static document: `fields` and `relationships` admit other keys
 * (GET …/definitions lists them, the service refuses any other), with the values those take.
 */
export function recordWriteSchema(type: ObjectTypeDefinition, isCreate: boolean): OpenApiSchema {
  const fields = writableFields(type);
  const relationships = writableRelationships(type, isCreate);
  const operations: readonly RelationshipOperation[] = type.updateOperations ?? RELATIONSHIP_OPERATIONS;
  const requiredFields = isCreate ? fields.filter((field) => field.required).map((field) => field.key) : [];
  const requiredRelationships = isCreate ? relationships.filter((r) => r.required).map((r) => r.key) : [];
  return {
    type: 'object',
    additionalProperties: false,
    ...(isCreate && { required: ['fields', ...(requiredRelationships.length ? ['relationships'] : [])] }),
    properties: {
      fields: {
        type: 'object',
        // null is the same as absent: a no-op on update, a missing member on create.
        ...(!isCreate && { nullable: true }),
        additionalProperties: { $ref: `#/components/schemas/${CUSTOM_FIELD_VALUE_NAME}` },
        description:
          'Field key → bare value; null clears. System fields start with $, custom fields use their bare key. ' +
          (isCreate ? 'Required.' : 'null is the same as absent.'),
        ...(requiredFields.length && { required: requiredFields }),
        properties: Object.fromEntries(
          fields.map((field) => [
            field.key,
            // null clears an optional field; a required one cannot be cleared.
            (field.required ? identity : orNull)({ ...fieldTypeOf(field.valueType).openApi(field), description: field.label }),
          ]),
        ),
      },
      relationships: {
        type: 'object',
        // null is the same as absent, which a required relationship cannot be.
        ...(!requiredRelationships.length && { nullable: true }),
        additionalProperties: isCreate ? orNull(ID_OR_IDS) : orNull(linkChangeSchema(operations)),
        description: isCreate
          ? 'Relationship key → an id or an array of ids. At most 25 ids per request.'
          : `Relationship key → an object with ${operations.join(', ')} (each an id or an array of ids). At most 25 ids per request.`,
        ...(requiredRelationships.length && { required: requiredRelationships }),
        properties: Object.fromEntries(
          relationships.map((relationship) => {
            const description = `${relationship.label} (${relationship.objectType})`;
            if (isCreate && relationship.required) return [relationship.key, { ...SOME_IDS, description }];
            if (isCreate) return [relationship.key, { ...orNull(ID_OR_IDS), description }];
            const change = { ...linkChangeSchema(operations), description };
            return [relationship.key, relationship.required ? change : orNull(change)];
          }),
        ),
      },
      externalId: { type: 'string', nullable: true, maxLength: 255, description: 'Unique per type' },
    },
  };
}

/** The value a schema shows by example: its own, else its first enum member or alternative. */
function exampleOf(schema: OpenApiSchema): unknown {
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.oneOf)) return exampleOf(schema.oneOf[0] as OpenApiSchema);
  if (schema.type === 'array' && schema.items) {
    const item = exampleOf(schema.items as OpenApiSchema);
    return item === undefined ? undefined : [item];
  }
  return undefined;
}

/**
 * A create or update body of a type that the service accepts as it stands: every writable field
 * with its type's example value (`overrides` where the type needs a related value, such as an end
 * after the start), no optional relationship, and for a required one an id of the right shape that
 * the reader replaces with one of their own (no static document can know it).
 */
export function recordWriteExample(
  type: ObjectTypeDefinition,
  isCreate: boolean,
  overrides: Record<string, unknown> = {},
): BodyExample {
  const fields = Object.fromEntries(
    writableFields(type).flatMap((field) => {
      const value = Object.hasOwn(overrides, field.key)
        ? overrides[field.key]
        : exampleOf(fieldTypeOf(field.valueType).openApi(field));
      return value === undefined ? [] : [[field.key, value]];
    }),
  );
  const required = isCreate ? writableRelationships(type, isCreate).filter((relationship) => relationship.required) : [];
  if (!required.length) {
    return { summary: 'Every field, with example values', value: { fields } };
  }
  return {
    summary: `Every field, with example values; ${required
      .map((relationship) => `${relationship.key} needs the id of one of your ${relationship.objectType} records`)
      .join('; ')}`,
    value: {
      fields,
      relationships: Object.fromEntries(required.map((r) => [r.key, exampleIdOf(idKindOf(r.objectType))])),
    },
  };
}

/**
 * A filter of a type's list route that a reader can run unchanged: its first field that takes a
 * text prefix (else a substring), with the field's example value.
 */
export function listFilterExample(type: ObjectTypeDefinition): Record<string, string> {
  for (const field of type.fields) {
    const fieldType = fieldTypeOf(field.valueType);
    const operator = (['startsWith', 'contains'] as const).find((candidate) => fieldType.operators.includes(candidate));
    const example = exampleOf(fieldType.openApi(field));
    if (operator && typeof example === 'string') return { [`${field.key}[${operator}]`]: example };
  }
  throw new Error(`The ${type.slug} type has no field a text filter can show`);
}

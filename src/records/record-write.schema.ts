import { exampleIdOf } from '../common/ids';
import type { BodyExample } from '../common/openapi/api-json-body';
import { schemaComponent } from '../common/openapi/schema-components';
import { fieldTypeOf, objectValueSchemas } from './field-types/registry';
import { MAX_ITEMS } from './field-types/values';
import { orNull } from './field-types/field-type';
import type { OpenApiSchema } from './field-types/field-type';
import { RELATIONSHIP_OPERATIONS } from './object-type';
import type {
  FieldDefinition,
  ObjectTypeDefinition,
  RelationshipDefinition,
  RelationshipOperation,
} from './object-type';
import { idKindOf } from './record-ids';
import { MAX_RELATIONSHIP_IDS_PER_REQUEST } from './record-write';

const identity = (schema: OpenApiSchema) => schema;

const writableFields = (type: ObjectTypeDefinition): FieldDefinition[] =>
  type.fields.filter((field) => !field.readOnly);

const writableRelationships = (type: ObjectTypeDefinition, isCreate: boolean): RelationshipDefinition[] =>
  type.relationships.filter((r) => !r.readOnly && (isCreate || !r.createOnly));

const ID_OR_IDS: OpenApiSchema = {
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: MAX_RELATIONSHIP_IDS_PER_REQUEST }],
  description: 'An id or an array of ids (at most 25 ids per request, over all relationships)',
};

/** A required relationship's ids on create: an empty array leaves it missing. */
const SOME_IDS: OpenApiSchema = {
  oneOf: [
    { type: 'string' },
    { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_RELATIONSHIP_IDS_PER_REQUEST },
  ],
  description: 'An id or a non-empty array of ids (at most 25 ids per request, over all relationships)',
};

/**
 * A value of a custom field, whose type only the workspace knows: whatever a field type takes (a
 * string, a number, a boolean, an array of strings, an object of ADDRESS or FULL_NAME), or null.
 * One component, which every type's fields refer to.
 */
const CUSTOM_FIELD_VALUE = schemaComponent('CustomFieldValue', {
  anyOf: [
    { type: 'string', nullable: true },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: { type: 'string' }, maxItems: MAX_ITEMS },
    ...objectValueSchemas(),
  ],
  description: 'A custom field: its value type is in GET …/definitions',
});

const RELATIONSHIP_IDS = schemaComponent('RelationshipIds', ID_OR_IDS);
const RELATIONSHIP_IDS_OR_NULL = schemaComponent('RelationshipIdsOrNull', orNull(ID_OR_IDS));
const REQUIRED_RELATIONSHIP_IDS = schemaComponent('RequiredRelationshipIds', SOME_IDS);
const EXTERNAL_ID = schemaComponent('ExternalId', {
  type: 'string',
  nullable: true,
  maxLength: 255,
  description: 'Unique per type',
});

/** A custom type as a static document knows it: every field and relationship of it is the workspace's. */
export const CUSTOM_RECORD_TYPE: ObjectTypeDefinition = {
  slug: 'custom',
  label: 'Custom object',
  custom: true,
  fields: [],
  relationships: [],
};

const pascal = (words: string): string =>
  words.replace(/(^|\s+)(\S)/g, (_match, _space, letter: string) => letter.toUpperCase());

/** `component` with the description of where it is used. */
const described = (component: OpenApiSchema, description: string): OpenApiSchema => ({
  allOf: [component],
  description,
});

/** A key as one segment of a JSON pointer (RFC 6901). */
const pointerSegment = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** What an update asks of one relationship: the type's operations, each an id or ids. */
function relationshipChange(operations: readonly RelationshipOperation[], nullable: boolean): OpenApiSchema {
  const change: OpenApiSchema = {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(operations.map((operation) => [operation, RELATIONSHIP_IDS])),
    description: `An object with ${operations.join(', ')}, each an id or an array of ids`,
  };
  return schemaComponent(
    `RelationshipChange${operations.map(pascal).join('')}${nullable ? 'OrNull' : ''}`,
    nullable ? orNull(change) : change,
  );
}

/*
 * A type's components, each written once for its create, update, upsert and batch bodies:
 * `AccountFields`, `AccountFieldChanges`, `AccountRelationships`, `AccountRelationshipChanges`.
 */

/** A type's fields as a write gives them, required or not. */
function fieldsOf(type: ObjectTypeDefinition): OpenApiSchema {
  return schemaComponent(`${pascal(type.label)}Fields`, {
    type: 'object',
    additionalProperties: CUSTOM_FIELD_VALUE,
    description: 'Field key → bare value; null clears. System fields start with $, custom fields use their bare key.',
    properties: Object.fromEntries(
      writableFields(type).map((field) => [
        field.key,
        // null clears an optional field; a required one cannot be cleared.
        (field.required ? identity : orNull)({
          ...fieldTypeOf(field.valueType).openApi(field),
          description: field.label,
        }),
      ]),
    ),
  });
}

/** A type's fields as an update gives them: null is the same as absent, a no-op, which the fields of a create cannot be. */
function fieldChangesOf(type: ObjectTypeDefinition): OpenApiSchema {
  const fields = fieldsOf(type).$ref as string;
  return schemaComponent(`${pascal(type.label)}FieldChanges`, {
    type: 'object',
    nullable: true,
    additionalProperties: CUSTOM_FIELD_VALUE,
    description: `The fields of ${fields.split('/').pop()}, null the same as absent`,
    properties: Object.fromEntries(
      writableFields(type).map((field) => [field.key, { $ref: `${fields}/properties/${pointerSegment(field.key)}` }]),
    ),
  });
}

const relationshipDescription = (relationship: RelationshipDefinition) =>
  `${relationship.label} (${relationship.objectType})`;

/** A type's relationships as a create (or an upsert) sets them, required or not. */
function relationshipsOf(type: ObjectTypeDefinition): OpenApiSchema {
  const relationships = writableRelationships(type, true);
  return schemaComponent(`${pascal(type.label)}Relationships`, {
    type: 'object',
    // null is the same as absent, which a required relationship cannot be.
    ...(!relationships.some((r) => r.required) && { nullable: true }),
    additionalProperties: RELATIONSHIP_IDS_OR_NULL,
    description: 'Relationship key → an id or an array of ids. At most 25 ids per request.',
    properties: Object.fromEntries(
      relationships.map((relationship) => [
        relationship.key,
        described(
          relationship.required ? REQUIRED_RELATIONSHIP_IDS : RELATIONSHIP_IDS_OR_NULL,
          relationshipDescription(relationship),
        ),
      ]),
    ),
  });
}

/** A type's relationships as an update changes them: null is the same as absent, a no-op. */
function relationshipChangesOf(type: ObjectTypeDefinition): OpenApiSchema {
  const operations: readonly RelationshipOperation[] = type.updateOperations ?? RELATIONSHIP_OPERATIONS;
  return schemaComponent(`${pascal(type.label)}RelationshipChanges`, {
    type: 'object',
    nullable: true,
    additionalProperties: relationshipChange(operations, true),
    description: `Relationship key → an object with ${operations.join(', ')} (each an id or an array of ids). At most 25 ids per request.`,
    properties: Object.fromEntries(
      writableRelationships(type, false).map((relationship) => [
        relationship.key,
        // A required relationship cannot be cleared.
        described(relationshipChange(operations, !relationship.required), relationshipDescription(relationship)),
      ]),
    ),
  });
}

/** `component`, with `required` members when there are any. */
function requiring(component: OpenApiSchema, required: string[]): OpenApiSchema {
  return required.length ? { allOf: [component], required } : component;
}

/**
 * The OpenAPI schema of a create or update body of a type, closed as readRecordWrite is, its
 * fields and relationships the type's components. The workspace's custom fields and relationships
 * are not known to a static document: `fields` and `relationships` admit other keys (GET
 * …/definitions lists them, the service refuses any other), with the values those take.
 */
export function recordWriteSchema(type: ObjectTypeDefinition, isCreate: boolean): OpenApiSchema {
  if (!isCreate) {
    return {
      type: 'object',
      additionalProperties: false,
      properties: { fields: fieldChangesOf(type), relationships: relationshipChangesOf(type), externalId: EXTERNAL_ID },
    };
  }
  const requiredFields = writableFields(type)
    .filter((field) => field.required)
    .map((field) => field.key);
  const requiredRelationships = writableRelationships(type, true)
    .filter((r) => r.required)
    .map((r) => r.key);
  return {
    type: 'object',
    additionalProperties: false,
    required: ['fields', ...(requiredRelationships.length ? ['relationships'] : [])],
    properties: {
      fields: requiring(fieldsOf(type), requiredFields),
      relationships: requiring(relationshipsOf(type), requiredRelationships),
      externalId: EXTERNAL_ID,
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
  const required = isCreate
    ? writableRelationships(type, isCreate).filter((relationship) => relationship.required)
    : [];
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

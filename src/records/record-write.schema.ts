import { fieldTypeOf } from './field-types/registry';
import type { OpenApiSchema } from './field-types/field-type';
import type { ObjectTypeDefinition, RelationshipOperation } from './object-type';

const identity = (schema: OpenApiSchema) => schema;

const ID_OR_IDS: OpenApiSchema = {
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 25 }],
  description: 'An id or an array of ids (at most 25 ids per request, over all relationships)',
};

/**
 * `schema` admitting null too. OpenAPI 3.0's `nullable` needs a `type` beside it, so a `oneOf`
 * admits null through its first alternative (which alone then matches null).
 */
function orNull(schema: OpenApiSchema): OpenApiSchema {
  if (schema.type !== undefined) return { ...schema, nullable: true };
  const alternatives = schema.oneOf as OpenApiSchema[] | undefined;
  if (alternatives?.length) return { ...schema, oneOf: [orNull(alternatives[0]), ...alternatives.slice(1)] };
  return schema;
}

/**
 * The OpenAPI schema of a create or update body of a type, built from its definitions and the
 * registry's field fragments. Custom fields and relationships of a workspace are not known to a
 * static document: `additionalProperties` admits them (GET …/definitions lists them).
 */
export function recordWriteSchema(type: ObjectTypeDefinition, isCreate: boolean): OpenApiSchema {
  const fields = type.fields.filter((field) => !field.readOnly);
  const relationships = type.relationships.filter((r) => !r.readOnly && (isCreate || !r.createOnly));
  const operations: readonly RelationshipOperation[] = type.updateOperations ?? ['add', 'remove', 'replace'];
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
        additionalProperties: true,
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
        nullable: true,
        additionalProperties: true,
        ...(requiredRelationships.length && { required: requiredRelationships }),
        properties: Object.fromEntries(
          relationships.map((relationship) => [
            relationship.key,
            isCreate
              ? (relationship.required ? identity : orNull)({
                  ...ID_OR_IDS,
                  description: `${relationship.label} (${relationship.objectType})`,
                })
              : {
                  type: 'object',
                  ...(!relationship.required && { nullable: true }),
                  additionalProperties: false,
                  description: `${relationship.label} (${relationship.objectType})`,
                  properties: Object.fromEntries(operations.map((operation) => [operation, ID_OR_IDS])),
                },
          ]),
        ),
      },
      externalId: { type: 'string', nullable: true, maxLength: 255, description: 'Unique per type' },
    },
  };
}

import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';
import { operationsOf } from './operation-handlers';

const COMPONENT_SCHEMA = '#/components/schemas/';

/** The component schemas `schema` names, at any depth, without following them. */
function referencedComponents(schema: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) referencedComponents(item, found);
  } else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_SCHEMA)) {
        found.add(value.slice(COMPONENT_SCHEMA.length).split('/')[0]);
      } else {
        referencedComponents(value, found);
      }
    }
  }
  return found;
}

/**
 * A member with a default is one the client may leave out: `@ApiProperty({ default })` marks it
 * required all the same, and a generated client then demands it (a member's `role`).
 */
function optionalDefaults(schema: SchemaObject): void {
  const properties = schema.properties ?? {};
  const required = schema.required?.filter((key) => {
    const property = properties[key];
    return !property || '$ref' in property || property.default === undefined;
  });
  if (required?.length) schema.required = required;
  else delete schema.required;
}

/**
 * `additionalProperties: false` on every component schema a JSON request body reaches. Each is the
 * class of a static body, which DtoValidationPipe (or validateEntry, for the parts a handler
 * validates itself) checks at every level, refusing any member the class does not declare with
 * 400 `unknown_field`. A body the records core validates is built closed by recordWriteSchema,
 * with its user-keyed maps open; a component that says how its extra members look (a map) keeps
 * that. And none of them requires a member that has a default.
 */
export function closeRequestBodies(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const pending = new Set<string>();
  for (const { requestBody } of operationsOf(document)) {
    if (requestBody && !('$ref' in requestBody))
      referencedComponents(requestBody.content['application/json']?.schema, pending);
  }
  const closed = new Set<string>();
  for (const name of pending) {
    if (closed.has(name)) continue;
    closed.add(name);
    const schema = schemas[name];
    if (!schema || '$ref' in schema) continue;
    // Only a schema that declares members can be closed: one of alternatives (a custom field's value) has none of its own.
    if (schema.properties) schema.additionalProperties ??= false;
    optionalDefaults(schema);
    referencedComponents(schema, pending);
  }
}

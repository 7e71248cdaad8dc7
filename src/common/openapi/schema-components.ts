import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';

/** The schemas written as objects (no class to hang `@ApiExtraModels` on) that decorators name, by name. */
const NAMED_SCHEMAS = new Map<string, SchemaObject>();

/**
 * `schema` as a component of the document, `name`, and a reference to it: a part of request bodies
 * written as a schema object (a batch's `atomic`, a record's `externalId`) that many operations
 * share is then written once, as the schema of a `@ApiProperty` class is. documentSchemaComponents
 * adds them to the document.
 */
export function schemaComponent(name: string, schema: SchemaObject): { $ref: string } {
  const known = NAMED_SCHEMAS.get(name);
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(schema))
    throw new Error(`Two different schemas are named ${name}`);
  NAMED_SCHEMAS.set(name, schema);
  return { $ref: `#/components/schemas/${name}` };
}

/** Adds every schema named with schemaComponent to the document's components. */
export function documentSchemaComponents(document: OpenAPIObject): void {
  const schemas = (document.components!.schemas ??= {});
  for (const [name, schema] of [...NAMED_SCHEMAS].sort(([a], [b]) => a.localeCompare(b))) {
    if (schemas[name]) throw new Error(`A component schema is already named ${name}`);
    // A copy: the passes after this one complete the document's schemas in place, and each document has its own.
    schemas[name] = structuredClone(schema);
  }
}

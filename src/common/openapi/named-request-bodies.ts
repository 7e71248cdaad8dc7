import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';
import { operationsOf } from './operation-handlers';

/** `Notes_create` → `NotesCreateRequest`. */
function requestSchemaName(operationId: string): string {
  return `${operationId
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Request`;
}

/** `schema` with every part of it (not itself) that is written as `named` holds written as a reference to it. */
function referringTo(schema: unknown, named: Map<string, string>, isRoot = true): unknown {
  if (!schema || typeof schema !== 'object') return schema;
  const name = isRoot ? undefined : named.get(JSON.stringify(schema));
  if (name !== undefined) return { $ref: `#/components/schemas/${name}` };
  if (Array.isArray(schema)) return schema.map((item) => referringTo(item, named, false));
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, key === 'example' ? value : referringTo(value, named, false)]),
  );
}

/**
 * Every JSON request body a component schema: the ones written as a schema object (the records
 * core's, built per type) become `<OperationId>Request`, so that a client names the body it sends
 * (the generated TypeScript client exports them as types) instead of repeating it inline. A body
 * that holds another as it stands (a batch's inputs, each a single write's body) refers to it.
 */
export function nameRequestBodies(document: OpenAPIObject): void {
  const schemas = (document.components!.schemas ??= {});
  const named = new Map<string, string>();
  for (const operation of operationsOf(document)) {
    const json =
      operation.requestBody && !('$ref' in operation.requestBody)
        ? operation.requestBody.content['application/json']
        : undefined;
    if (!json?.schema || '$ref' in json.schema || !operation.operationId) continue;
    const name = requestSchemaName(operation.operationId);
    if (schemas[name]) throw new Error(`${operation.operationId}: a component schema is already named ${name}`);
    schemas[name] = json.schema;
    named.set(JSON.stringify(json.schema), name);
    json.schema = { $ref: `#/components/schemas/${name}` };
  }
  for (const name of named.values()) schemas[name] = referringTo(schemas[name], named) as SchemaObject;
}

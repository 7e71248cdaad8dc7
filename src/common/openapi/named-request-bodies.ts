import type { OpenAPIObject } from '@nestjs/swagger';
import { operationsOf } from './operation-handlers';

/** `Notes_create` → `NotesCreateRequest`. */
function requestSchemaName(operationId: string): string {
  return `${operationId
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Request`;
}

/**
 * Every JSON request body a component schema: the ones written as a schema object (the records
 * core's, built per type) become `<OperationId>Request`, so that a client names the body it sends
 * (the generated TypeScript client exports them as types) instead of repeating it inline.
 */
export function nameRequestBodies(document: OpenAPIObject): void {
  const schemas = (document.components!.schemas ??= {});
  for (const operation of operationsOf(document)) {
    const json = operation.requestBody && !('$ref' in operation.requestBody) ? operation.requestBody.content['application/json'] : undefined;
    if (!json?.schema || '$ref' in json.schema || !operation.operationId) continue;
    const name = requestSchemaName(operation.operationId);
    if (schemas[name]) throw new Error(`${operation.operationId}: a component schema is already named ${name}`);
    schemas[name] = json.schema;
    json.schema = { $ref: `#/components/schemas/${name}` };
  }
}

import type { OpenAPIObject } from '@nestjs/swagger';
import { resolved } from '../support/openapi';

/** The subset of JSON Schema the served document uses. */
export interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
  description?: string;
  example?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  maxItems?: number;
  oneOf?: Schema[];
}

export type Security = 'apiKey' | 'adminToken' | 'none';

/** One operation of the document, as the fuzzer needs it. */
export interface Operation {
  method: string;
  /** The path template, e.g. `/v1/notes/{id}`. */
  route: string;
  pathParams: string[];
  queryParams: { name: string; required: boolean; schema: Schema }[];
  /** The request headers it documents besides the ones every operation has, e.g. `If-Match`. */
  headerParams: string[];
  /** The JSON request body's schema, references left in place. */
  bodySchema?: Schema;
  /** A body of raw bytes (the signed upload route). */
  binaryBody: boolean;
  security: Security;
  /** Takes `limit` and `offset`: a paged list, which may also take filters. */
  paged: boolean;
}

interface DocumentOperation {
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  security?: Record<string, unknown>[];
}

/** Every operation of the served document, in its order (sorted by path). */
export function operationsOf(document: OpenAPIObject): Operation[] {
  const operations: Operation[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    for (const [method, value] of Object.entries(item as Record<string, DocumentOperation>)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters = (value.parameters ?? []).map((parameter) => resolved(document, parameter));
      const queryParams = parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => ({
          name: parameter.name,
          required: parameter.required === true,
          schema: parameter.schema ?? {},
        }));
      const securityNames = (value.security ?? document.security ?? []).flatMap((requirement) =>
        Object.keys(requirement),
      );
      operations.push({
        method: method.toUpperCase(),
        route,
        pathParams: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        queryParams,
        headerParams: parameters.filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name),
        bodySchema: value.requestBody?.content['application/json']?.schema,
        binaryBody: value.requestBody !== undefined && value.requestBody.content['application/json'] === undefined,
        security: securityNames.includes('adminToken')
          ? 'adminToken'
          : securityNames.includes('apiKey')
            ? 'apiKey'
            : 'none',
        paged: ['limit', 'offset'].every((name) => queryParams.some((parameter) => parameter.name === name)),
      });
    }
  }
  return operations;
}

/** The node a local JSON pointer (`#/components/schemas/A/properties/b`) names, if any. */
function pointerTarget(document: OpenAPIObject, pointer: string): Schema | undefined {
  let node: unknown = document;
  for (const token of pointer.replace(/^#\//, '').split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node as Schema | undefined;
}

/** Follows `$ref`s (local JSON pointers) through the document. */
export function resolveSchema(document: OpenAPIObject, schema: Schema): Schema {
  let resolved = schema;
  while (resolved.$ref) {
    const target = pointerTarget(document, resolved.$ref);
    if (!target) throw new Error(`fuzz: the document has no schema ${resolved.$ref}`);
    resolved = target;
  }
  return resolved;
}

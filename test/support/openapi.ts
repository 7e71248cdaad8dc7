import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OpenAPIObject, ParameterObject } from '@nestjs/swagger';
import type { Response } from 'supertest';
import { catalogueMismatch } from './errors';
import { requestOf } from './request-of';

type Operation = { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string'
          ? inner.replace('#/components', 'openapi#/components')
          : rewriteRefs(inner),
      ]),
    );
  }
  return value;
}

/**
 * Checks real responses against the served OpenAPI document: the operation must exist, document the
 * status, and its JSON schema must accept the body. Keeps the document truthful.
 */
export class OpenApiValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly matchers: { regex: RegExp; path: string }[];

  constructor(private readonly document: OpenAPIObject) {
    addFormats(this.ajv);
    this.ajv.addSchema(rewriteRefs({ components: document.components }) as object, 'openapi');
    // The fewest parameters first: `/v1/notes/upsert` is that route, not `/v1/notes/{id}`.
    const parameters = (path: string) => path.split('{').length;
    this.matchers = Object.keys(document.paths)
      .sort((a, b) => parameters(a) - parameters(b))
      .map((path) => ({ path, regex: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
  }

  operationPath(actualPath: string): string | undefined {
    const exact = this.matchers.find((matcher) => matcher.path === actualPath);
    return (exact ?? this.matchers.find((matcher) => matcher.regex.test(actualPath)))?.path;
  }

  /** Throws when `body` does not match the documented request body of the operation. */
  assertRequest(method: string, actualPath: string, body: unknown): void {
    const path = this.operationPath(actualPath);
    type WithBody = { requestBody?: { content: Record<string, { schema: unknown }> } };
    const operation = path ? (this.document.paths[path] as Record<string, WithBody>)[method.toLowerCase()] : undefined;
    const schema = operation?.requestBody?.content['application/json']?.schema;
    if (!schema) throw new Error(`${method} ${actualPath} documents no JSON request body`);
    const cacheKey = `request ${method} ${path}`;
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema) as object);
      this.compiled.set(cacheKey, validate);
    }
    if (!validate(body)) {
      throw new Error(`${method} ${path} request does not match its schema: ${this.ajv.errorsText(validate.errors)}`);
    }
  }

  /** True when the documented request body refuses `body`. */
  refusesRequest(method: string, actualPath: string, body: unknown): boolean {
    try {
      this.assertRequest(method, actualPath, body);
      return false;
    } catch {
      return true;
    }
  }

  /**
   * Throws with the schema errors when the response does not match the document, or when an error
   * response's code is not in the error catalogue under its status.
   */
  assert(response: Response): void {
    const method = (requestOf(response).method ?? 'GET').toLowerCase();
    const actualPath = new URL(requestOf(response).path, 'http://x').pathname;
    const path = this.operationPath(actualPath);
    if (!path) throw new Error(`${actualPath} is not in the OpenAPI document`);
    const operation = (this.document.paths[path] as Record<string, Operation>)[method];
    if (!operation) throw new Error(`${method.toUpperCase()} ${path} is not in the OpenAPI document`);
    const documented = resolved(this.document, operation.responses[String(response.status)]);
    if (!documented) throw new Error(`${method.toUpperCase()} ${path} does not document status ${response.status}`);
    const mismatch = response.status >= 400 ? catalogueMismatch(response.status, response.body) : undefined;
    if (mismatch)
      throw new Error(
        `${method.toUpperCase()} ${path} ${response.status}: ${mismatch}\n${JSON.stringify(response.body)}`,
      );
    const schema = documented.content?.['application/json']?.schema;
    if (!schema) return;
    const cacheKey = `${method} ${path} ${response.status}`;
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema) as object);
      this.compiled.set(cacheKey, validate);
    }
    if (!validate(response.body)) {
      throw new Error(
        `${method.toUpperCase()} ${path} ${response.status} does not match its schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(response.body)}`,
      );
    }
  }
}

/**
 * `value`, or what it refers to when it is a `{ $ref: '#/components/<kind>/<name>' }` (the error
 * responses and the parameters several operations declare alike are shared components).
 */
export function resolved<T>(document: OpenAPIObject, value: T | { $ref: string }): T {
  if (!value || typeof value !== 'object' || !('$ref' in value) || typeof value.$ref !== 'string') return value as T;
  const [kind, name] = value.$ref.replace('#/components/', '').split('/');
  const target = (document.components as Record<string, Record<string, unknown> | undefined> | undefined)?.[kind]?.[
    name
  ];
  if (target === undefined) throw new Error(`${value.$ref} names no component`);
  return target as T;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type DocumentOperation = NonNullable<OpenAPIObject['paths'][string]['get']>;

/**
 * Every operation of the document as `METHOD /path` → operation, its parameters resolved (shared
 * ones are `components.parameters`) and its security the document's where it states none.
 */
export function documentOperations(document: OpenAPIObject): Map<string, DocumentOperation> {
  const operations = new Map<string, DocumentOperation>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = (item as Record<string, DocumentOperation | undefined>)[method];
      if (!operation) continue;
      const parameters = operation.parameters?.map((parameter) => resolved<ParameterObject>(document, parameter));
      const security = operation.security ?? document.security;
      operations.set(`${method.toUpperCase()} ${path}`, { ...operation, parameters, security });
    }
  }
  return operations;
}

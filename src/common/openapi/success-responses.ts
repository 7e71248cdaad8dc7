import type { OpenAPIObject, ResponseObject } from '@nestjs/swagger';
import { operationsOf } from './operation-handlers';

const COMPONENT_RESPONSE = '#/components/responses/';
const COMPONENT_SCHEMA = '#/components/schemas/';

/** What a success's body is, for its name: the component it names, or a page of one (`EntityEnvelopePage`). */
function bodyName(response: ResponseObject): string | undefined {
  const schema = response.content?.['application/json']?.schema as
    { $ref?: string; properties?: { data?: { items?: { $ref?: string } } } } | undefined;
  const name = (ref: string | undefined) =>
    ref?.startsWith(COMPONENT_SCHEMA) ? ref.slice(COMPONENT_SCHEMA.length).replace(/Dto$/, '') : undefined;
  const item = name(schema?.properties?.data?.items?.$ref);
  return name(schema?.$ref) ?? (item === undefined ? undefined : `${item}Page`);
}

/**
 * The name of a shared success: its body, its status when not 200, and what its headers say of the
 * pipeline, as the error responses' names do (`Unmetered`: outside the rate limits), `BatchItems`
 * for the batch throttler's headers and `Replayable` for an idempotent operation's; a 304 is
 * `NotModified`.
 */
function responseName(status: string, response: ResponseObject): string | undefined {
  // A conditional read's 304 has no body, and its ETag is its only header.
  if (status === '304') return 'NotModified';
  const body = bodyName(response);
  if (body === undefined) return undefined;
  const headers = Object.keys(response.headers ?? {});
  return [
    body,
    ...(status === '200' ? [] : [status]),
    ...(headers.includes('X-RateLimit-Limit') ? [] : ['Unmetered']),
    ...(headers.includes('X-RateLimit-Batch-Items-Limit') ? ['BatchItems'] : []),
    ...(headers.includes('Idempotent-Replayed') ? ['Replayable'] : []),
  ].join('_');
}

/**
 * Every success response that more than one operation answers alike (the record types' creates,
 * pages, batches) written once in `components.responses` and referred to: its body's schema,
 * description and pipeline headers are otherwise repeated on each operation, in the document and
 * in every client generated from it. A success only one operation answers stays where it is.
 */
export function shareSuccessResponses(document: OpenAPIObject): void {
  const uses = new Map<string, { status: string; response: ResponseObject; count: number }>();
  for (const operation of operationsOf(document)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!response || '$ref' in response || Number(status) >= 400) continue;
      const key = JSON.stringify(response);
      const seen = uses.get(key);
      if (seen) seen.count += 1;
      else uses.set(key, { status, response, count: 1 });
    }
  }
  const names = new Map<string, string>();
  const shared: Record<string, ResponseObject> = {};
  for (const [key, { status, response, count }] of uses) {
    const name = count > 1 ? responseName(status, response) : undefined;
    if (name === undefined) continue;
    if (shared[name])
      throw new Error(`Two different successes would share the name ${name}: their descriptions differ`);
    shared[name] = response;
    names.set(key, name);
  }
  for (const operation of operationsOf(document)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const name = response && !('$ref' in response) ? names.get(JSON.stringify(response)) : undefined;
      if (name !== undefined) operation.responses[status] = { $ref: `${COMPONENT_RESPONSE}${name}` };
    }
  }
  const sorted = Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b)));
  document.components = { ...document.components, responses: { ...document.components?.responses, ...sorted } };
}

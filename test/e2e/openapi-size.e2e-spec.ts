import type { OpenAPIObject } from '@nestjs/swagger';
import { servedOpenApiDocument } from '../../src/cli/openapi-document';

/** A part of the document smaller than this is cheaper written out than named and referred to. */
const SHAREABLE_BYTES = 200;

/**
 * The bound the document is kept under, in bytes of compact JSON (issue 31: 783 KB, four times what
 * its operations need). Most of what is left is the references every operation makes to its shared
 * error responses, one per status it can answer. Issue 39 added the feed's 410 and second 503, 2.5 KB
 * of contract, not of copies. Issue 42 added 5.5 KB: each single-record operation's ETag, its
 * If-Match or If-None-Match (shared parameters), its 412 or 304 (shared responses), `version`; and
 * 7.3 KB more for lists and webhook endpoints (the same, and a delete's If-Match), the 428 of every
 * conditional write, the operator's workspace settings route, batch upserts' `ifNoneMatch`.
 */
const MAX_DOCUMENT_BYTES = 269_000;

/** Every object of `value` but `value` itself, as JSON text, with where it is. */
function innerObjects(value: unknown, at: string, found: [string, string][] = [], isRoot = true): [string, string][] {
  if (!value || typeof value !== 'object') return found;
  if (!isRoot && !Array.isArray(value)) found.push([at, JSON.stringify(value)]);
  for (const [key, inner] of Object.entries(value)) {
    // Examples are values, not schemas: an example may show what a schema describes.
    if (key !== 'example' && key !== 'examples') innerObjects(inner, `${at}/${key}`, found, false);
  }
  return found;
}

/** The document is written as a person would keep it: each part once, referred to wherever it is used. */
describe('OpenAPI: the document writes each part once', () => {
  let document: OpenAPIObject;

  beforeAll(async () => {
    document = await servedOpenApiDocument();
  }, 60_000);

  it('writes no component schema out again in place of a reference to it', () => {
    const components = new Map<string, string>();
    for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
      const text = JSON.stringify(schema);
      if (text.length >= SHAREABLE_BYTES) components.set(text, name);
    }
    const copies = innerObjects(document, '#')
      .filter(([at, text]) => components.has(text) && at !== `#/components/schemas/${components.get(text)}`)
      .map(([at, text]) => `${at} copies ${components.get(text)}`);
    expect(copies).toEqual([]);
  });

  it('answers a success several operations answer alike from one shared response', () => {
    const seen = new Map<string, string>();
    const repeated: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(
        item as Record<string, { responses?: Record<string, object> }>,
      )) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const text = JSON.stringify(response);
          if ('$ref' in response || text.length < SHAREABLE_BYTES) continue;
          const first = seen.get(text);
          if (first) repeated.push(`${method.toUpperCase()} ${path} ${status} repeats ${first}`);
          else seen.set(text, `${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(repeated).toEqual([]);
  });

  it('refers to a shared parameter instead of declaring it again on an operation', () => {
    const components = new Map(
      Object.entries(document.components?.parameters ?? {}).map(([name, parameter]) => [
        JSON.stringify(parameter),
        name,
      ]),
    );
    expect(components.size).toBeGreaterThan(0);
    const copies: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item as Record<string, { parameters?: object[] }>)) {
        for (const parameter of operation.parameters ?? []) {
          const shared = components.get(JSON.stringify(parameter));
          if (shared) copies.push(`${method.toUpperCase()} ${path} copies ${shared}`);
        }
      }
    }
    expect(copies).toEqual([]);
  });

  it(`stays under ${MAX_DOCUMENT_BYTES} bytes of compact JSON`, () => {
    expect(JSON.stringify(document).length).toBeLessThanOrEqual(MAX_DOCUMENT_BYTES);
  });
});

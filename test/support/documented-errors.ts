import type { Server, ServerResponse } from 'node:http';
import type { OpenAPIObject } from '@nestjs/swagger';
import { resolved } from './openapi';

/**
 * Codes of http-parser-refusals.ts: answered on a connection whose bytes Node's parser refused,
 * before there is a request of any operation, so no operation of the document can list them.
 */
const CONNECTION_REFUSALS = new Set(['malformed_request', 'header_too_large', 'request_timeout', 'expectation_failed']);

/** An error the service answered: the request as the client sent it, and the status and code it got. */
export interface AnsweredError {
  method: string;
  /** Path and query, as on the request line. */
  target: string;
  status: number;
  code?: string;
}

type ErrorResponseObject = { description?: string };
type DocumentOperation = { responses: Record<string, ErrorResponseObject | { $ref: string } | undefined> };

function segmentsOf(path: string): string[] | undefined {
  try {
    // The router ignores case and one trailing slash, and decodes each segment (docs/api.md §1).
    return path
      .replace(/(.)\/$/, '$1')
      .split('/')
      .slice(1)
      .map((segment) => decodeURIComponent(segment).toLowerCase());
  } catch {
    return undefined;
  }
}

/**
 * The document's operation a request reaches: the path template whose segments match, the one
 * with the most literal segments first (`/v1/notes/definitions` before `/v1/notes/{id}`).
 * `undefined` for an unknown route or another method (the 404 and 405 of no operation).
 */
function operationOf(
  document: OpenAPIObject,
  method: string,
  target: string,
): { name: string; operation: DocumentOperation } | undefined {
  // Not through URL, which would resolve the dot segments the router refuses.
  const actual = segmentsOf(target.split('?')[0]);
  if (!actual) return undefined;
  // HEAD is answered by the GET route, without a body.
  const key = method === 'HEAD' ? 'get' : method.toLowerCase();
  let best: { name: string; operation: DocumentOperation; literals: number } | undefined;
  for (const [path, item] of Object.entries(document.paths)) {
    const operation = (item as Record<string, DocumentOperation | undefined>)[key];
    const template = segmentsOf(path);
    if (!operation || !template || template.length !== actual.length) continue;
    const matches = template.every((segment, index) =>
      /^\{.+\}$/.test(segment) ? actual[index] !== '' : segment === actual[index],
    );
    if (!matches) continue;
    const literals = template.filter((segment) => !/^\{.+\}$/.test(segment)).length;
    if (!best || literals > best.literals) best = { name: `${key.toUpperCase()} ${path}`, operation, literals };
  }
  return best;
}

/**
 * Why the document does not cover an error the service answered: its operation lists no response
 * of that status, or that response does not name the code. `undefined` when it does, and for an
 * answer no operation gave (an unknown route, another method, a refused connection).
 */
export function undocumentedError(document: OpenAPIObject, answered: AnsweredError): string | undefined {
  if (answered.code !== undefined && CONNECTION_REFUSALS.has(answered.code)) return undefined;
  const found = operationOf(document, answered.method, answered.target);
  if (!found) return undefined;
  const what = `${found.name} answered ${answered.status} ${answered.code ?? '(no body)'}`;
  const response = resolved<ErrorResponseObject | undefined>(
    document,
    found.operation.responses[String(answered.status)],
  );
  if (!response) return `${what}, a status it does not document`;
  if (answered.code !== undefined && !response.description?.includes(`\`${answered.code}\``)) {
    return `${what}, a code its ${answered.status} does not list`;
  }
  return undefined;
}

function codeOf(body: string): string | undefined {
  try {
    const code = (JSON.parse(body) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Watches every error `server` answers, whichever client sent the request (supertest, raw
 * sockets), and collects the ones `document` does not list for their operation. Error bodies go
 * out in one `end` (sendJson), which is where their code is read.
 */
export function watchUndocumentedErrors(server: Server, document: OpenAPIObject): { found: Set<string> } {
  const found = new Set<string>();
  // First in line: Express may answer in the same tick it receives the request.
  server.prependListener('request', (request, response: ServerResponse) => {
    const method = request.method ?? 'GET';
    const target = request.url ?? '/';
    const end = response.end;
    let body = '';
    response.end = function (this: ServerResponse, ...args: unknown[]) {
      const [chunk] = args;
      if (this.statusCode >= 400 && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) body = chunk.toString();
      return (end as (...inner: unknown[]) => ServerResponse).apply(this, args);
    } as typeof response.end;
    response.once('finish', () => {
      if (response.statusCode < 400) return;
      const problem = undocumentedError(document, { method, target, status: response.statusCode, code: codeOf(body) });
      if (problem) found.add(problem);
    });
  });
  return { found };
}

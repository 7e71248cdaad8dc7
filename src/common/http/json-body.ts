import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import { parse as parseContentType } from 'content-type';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Objects and arrays nested deeper than this are refused before anything parses or walks them. */
export const MAX_BODY_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

/**
 * Whether the JSON text nests objects and arrays deeper than `max` levels: one pass over the bytes,
 * no recursion, stopping at the first level too deep. Brackets inside strings are text; UTF-8
 * encodes every non-ASCII character in bytes ≥ 0x80, so looking at ASCII bytes is enough.
 */
export function nestsDeeperThan(json: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < json.length; index++) {
    const byte = json[index];
    if (inString) {
      if (byte === BACKSLASH) index++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (OPENERS.has(byte)) {
      if (++depth > max) return true;
    } else if (CLOSERS.has(byte)) {
      depth--;
    }
  }
  return false;
}

/** As HTTP frames it: a body is announced by Transfer-Encoding or a non-zero Content-Length. */
function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The API routes, whose bodies are JSON (docs/api.md §1); matched without case, as routing is. */
const JSON_BODY_PATH = /^\/(v1|admin)(\/|\?|$)/i;

/**
 * Whether the request is for the API: by the route it matched (whatever spelling of the path
 * reached it: `/%76%31/notes` is `/v1/notes`), or, when none did, by its path, so that a body sent
 * to an unknown API route is still judged before the 404.
 */
function isApiRequest(request: FastifyRequest): boolean {
  return JSON_BODY_PATH.test(request.is404 ? request.url : (request.routeOptions.url ?? ''));
}

const JSON_MEDIA_TYPE = /^application\/(json|[^/;\s]+\+json)$/;

const notJsonMediaType = () => new ApiError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json');
const notUtf8 = () => new ApiError(415, 'unsupported_media_type', 'The body must be UTF-8 encoded JSON');
const tooLarge = () => new ApiError(413, 'payload_too_large', `The body exceeds ${BODY_LIMIT_BYTES} bytes`);
const unreadable = () => new ApiError(400, 'invalid_json', 'The body could not be read');
const invalidJson = () => new ApiError(400, 'invalid_json', 'The body is not valid JSON');

/** The charset a Content-Type names; none when its parameters do not parse (they are then ignored). */
function charsetOf(header: string): string | undefined {
  try {
    return parseContentType(header).parameters.charset;
  } catch {
    return undefined;
  }
}

/**
 * The media type is what comes before any parameter; JSON between systems is UTF-8 (RFC 8259),
 * and the depth scan reads UTF-8 bytes.
 */
function checkMediaType(header: string | undefined): void {
  if (header === undefined || !JSON_MEDIA_TYPE.test(header.split(';', 1)[0].trim().toLowerCase())) {
    throw notJsonMediaType();
  }
  const charset = charsetOf(header);
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) throw notUtf8();
}

const DECOMPRESSORS: Record<string, () => Transform> = {
  gzip: createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The decompressor Content-Encoding names (none for identity); 415 for one HTTP does not define here. */
function decompressorFor(request: IncomingMessage): Transform | undefined {
  const encoding = (request.headers['content-encoding'] || 'identity').toLowerCase();
  if (encoding === 'identity') return undefined;
  // The encoding is the client's word: never a property an object has by inheritance.
  const create = Object.hasOwn(DECOMPRESSORS, encoding) ? DECOMPRESSORS[encoding] : undefined;
  if (!create) throw new ApiError(415, 'unsupported_media_type', `Content-Encoding ${encoding} is not supported`);
  return create();
}

/**
 * The body's bytes, decompressed as Content-Encoding says (gzip, deflate, br), refused past
 * BODY_LIMIT_BYTES as soon as it is announced or read. Once refused, the rest of the body is still
 * read and discarded, so that a keep-alive connection serves its next request; a client that goes
 * away mid-body fails the read rather than leaving it waiting.
 */
function readBytes(request: IncomingMessage): Promise<Buffer> {
  const decompressor = decompressorFor(request);
  if (!decompressor && Number(request.headers['content-length']) > BODY_LIMIT_BYTES) throw tooLarge();
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: ApiError) => {
      if (settled) return;
      settled = true;
      decompressor?.destroy();
      reject(error);
    };
    const succeed = () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    };
    const take = (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) fail(tooLarge());
      else chunks.push(chunk);
    };
    if (decompressor) {
      request.on('data', (chunk: Buffer) => settled || decompressor.write(chunk));
      request.once('end', () => settled || decompressor.end());
      decompressor.on('data', take);
      decompressor.once('end', succeed);
      decompressor.once('error', () => fail(unreadable()));
    } else {
      request.on('data', take);
      request.once('end', succeed);
    }
    request.once('error', () => fail(unreadable()));
    request.once('close', () => request.complete || fail(unreadable()));
  });
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Strict JSON as body-parser had it: the text must open an object or an array. */
function opensObjectOrArray(bytes: Buffer): boolean {
  let index = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (WHITESPACE.has(bytes[index])) index++;
  return OPENERS.has(bytes[index]);
}

async function parseJsonBody(request: IncomingMessage): Promise<object> {
  checkMediaType(request.headers['content-type']);
  const bytes = await readBytes(request);
  if (bytes.length === 0) return {};
  if (!opensObjectOrArray(bytes)) throw invalidJson();
  if (nestsDeeperThan(bytes, MAX_BODY_DEPTH)) {
    throw new ApiError(400, 'invalid_json', `The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`);
  }
  let body: unknown;
  try {
    // A byte order mark is not JSON; a client may still send one.
    body = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    throw invalidJson();
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
  }
  return body;
}

/**
 * JSON body parsing for the API routes (docs/api.md §1), whatever the method: only
 * `application/json` (or `+json`) in UTF-8 (415 otherwise), at most 1 MiB (413), well-formed and at
 * most MAX_BODY_DEPTH levels deep (400 `invalid_json`), and an object at the top level. Runs in
 * Fastify's `preValidation` hook: the framework's own parsers are removed (see http-server.ts), so
 * the body is still unread here. The signed file routes are outside `/v1` and stream their bytes themselves.
 */
export async function parseApiJsonBody(request: FastifyRequest): Promise<void> {
  if (request.body !== undefined || !hasBody(request.headers) || !isApiRequest(request)) return;
  request.body = await parseJsonBody(request.raw);
}

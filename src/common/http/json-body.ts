import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseContentType } from 'content-type';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError } from '../errors/api-error';
import { sendError } from '../errors/send-error';
import { lingerThenClose } from './linger';

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

/** The encodings docs/api.md §1 names, whatever else the running Node could decompress. */
const CONTENT_ENCODINGS = new Set(['', 'identity', 'gzip', 'deflate', 'br']);

const JSON_MEDIA_TYPES = ['application/json', 'application/*+json'];

/** The API routes, whose bodies are JSON (docs/api.md §1); matched without case, as routing is. */
const JSON_BODY_PATH = /^\/(v1|admin)(\/|$)/i;

/**
 * The labels of UTF-8 in the WHATWG Encoding Standard, which is what clients send: a `charset`
 * names UTF-8 when it is one of them in any letter case (docs/api.md §1).
 */
const UTF8_LABELS = new Set([
  'unicode-1-1-utf-8',
  'unicode11utf8',
  'unicode20utf8',
  'utf-8',
  'utf8',
  'x-unicode20utf8',
]);

const notJsonMediaType = () =>
  new ApiError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json');
const notUtf8 = () => new ApiError(415, 'unsupported_media_type', 'The body must be UTF-8 encoded JSON');

/**
 * Why the head of the request refuses its body, if it does: a media type that is not JSON, a
 * Content-Type whose parameters do not parse (what they say could not be honoured), a charset that
 * is not a label of UTF-8 (RFC 8259; the depth scan reads UTF-8 bytes), or a Content-Encoding other
 * than those documented.
 */
function headRefusal(request: Request): ApiError | undefined {
  if (!request.is(JSON_MEDIA_TYPES)) return notJsonMediaType();
  let charset: string | undefined;
  try {
    charset = parseContentType(request).parameters.charset;
  } catch {
    return notJsonMediaType();
  }
  if (charset !== undefined && !UTF8_LABELS.has(charset.toLowerCase())) return notUtf8();
  const encoding = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (!CONTENT_ENCODINGS.has(encoding)) {
    return new ApiError(415, 'unsupported_media_type', `Content-Encoding ${encoding} is not supported`);
  }
  return undefined;
}

/** A refusal of `verifyJsonBytes`, named as body-parser names its own (`error.type`). */
function verifyFailure(type: 'entity.not.utf8' | 'entity.too.deep'): Error {
  return Object.assign(new Error(type), { type });
}

/**
 * The bytes, checked before they are decoded and parsed (body-parser's `verify`): bytes that are not
 * UTF-8 would be decoded with replacement characters and stored so; nesting is refused before
 * JSON.parse recurses into it.
 */
function verifyJsonBytes(_request: unknown, _response: unknown, bytes: Buffer): void {
  if (!isUtf8(bytes)) throw verifyFailure('entity.not.utf8');
  if (nestsDeeperThan(bytes, MAX_BODY_DEPTH)) throw verifyFailure('entity.too.deep');
}

const tooLarge = () => new ApiError(413, 'payload_too_large', `The body exceeds ${BODY_LIMIT_BYTES} bytes`);

/** body-parser's failures, as the catalogue names them. */
function bodyParserRefusal(error: { type?: string }): ApiError {
  switch (error.type) {
    case 'entity.too.large':
      return tooLarge();
    case 'entity.not.utf8':
      return new ApiError(400, 'invalid_json', 'The body is not valid UTF-8');
    case 'entity.too.deep':
      return new ApiError(
        400,
        'invalid_json',
        `The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`,
      );
    case 'encoding.unsupported':
      return new ApiError(415, 'unsupported_media_type', 'The Content-Encoding is not supported');
    default:
      return new ApiError(400, 'invalid_json', 'The body could not be read');
  }
}

const BYTE_ORDER_MARK = 0xfeff;

/**
 * The JSON of bytes `verifyJsonBytes` passed (UTF-8, nested within the limit), or undefined when
 * they are no JSON text. A byte order mark is not part of the text (RFC 8259 §8.1 lets a parser
 * ignore it); no bytes at all, as a compressed empty body decodes to, are no members: `{}`.
 */
function parsedJson(bytes: Buffer): unknown {
  const decoded = bytes.toString('utf8');
  const text = decoded.charCodeAt(0) === BYTE_ORDER_MARK ? decoded.slice(1) : decoded;
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Answers 413 as soon as an uncompressed body is known to be over the limit, by its Content-Length
 * or by the bytes come so far, and bounds what is still read as every other refusal's
 * (lingerThenClose): body-parser would read such a body to its end before answering, bounded only
 * by the request timeout. Answers whether the body is refused already (then it is not to be read).
 */
function boundOversized(request: Request, response: Response): boolean {
  const refuse = () => {
    sendError(response, tooLarge());
    lingerThenClose(request, request.socket);
  };
  const encoding = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') return false;
  if (Number(request.headers['content-length']) > BODY_LIMIT_BYTES) {
    refuse();
    return true;
  }
  let received = 0;
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= BODY_LIMIT_BYTES) return;
    request.off('data', count);
    refuse();
  };
  request.on('data', count);
  return false;
}

/**
 * JSON body parsing for the API routes (docs/api.md §1), whatever the method: only
 * `application/json` or a `+json` type, in UTF-8 (415 otherwise), Content-Encoding gzip, deflate or
 * br, at most 1 MiB once decoded (413), valid UTF-8 and valid JSON nested at most MAX_BODY_DEPTH
 * levels (400 `invalid_json`), an object at the top level. body-parser reads the bytes (its raw
 * reader: its JSON reader refuses every charset not spelled `utf-…`, `utf8` among them, and the
 * charset is judged above, in one place); a body it refuses is still read to its end, so a keep-alive connection serves its next request,
 * except an uncompressed one over the limit (boundOversized).
 * The signed file routes are outside `/v1` and stream their bytes themselves.
 */
export function apiJsonBody() {
  const read = express.raw({ limit: BODY_LIMIT_BYTES, type: () => true, verify: verifyJsonBytes });
  // Mounted for every path and judged here: a mount path would rewrite and restore every request's
  // URL, bodies or not.
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!hasBody(request.headers) || !JSON_BODY_PATH.test(request.path)) return next();
    const refusal = headRefusal(request);
    if (refusal) return sendError(response, refusal);
    if (boundOversized(request, response)) return;
    read(request, response, (error?: unknown) => {
      // Already answered: the body went over the limit (boundOversized).
      if (response.headersSent) return;
      if (error) return sendError(response, bodyParserRefusal(error));
      const body = parsedJson(request.body as Buffer);
      if (body === undefined)
        return sendError(response, new ApiError(400, 'invalid_json', 'The body is not valid JSON'));
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        return sendError(response, new ApiError(400, 'invalid_json', 'The body must be a JSON object'));
      }
      request.body = body;
      next();
    });
  };
}

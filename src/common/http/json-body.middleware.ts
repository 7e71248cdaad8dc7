import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../errors/api-error';
import { sendError } from '../errors/send-error';

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

/** Runs on the raw bytes before JSON.parse (body-parser's `verify` hook). */
function verifyJsonBytes(_request: unknown, _response: unknown, body: Buffer, encoding: string): void {
  // JSON between systems is UTF-8 (RFC 8259); the depth scan reads UTF-8 bytes.
  if (!/^utf-?8$/i.test(encoding)) throw Object.assign(new Error(encoding), { type: 'charset.unsupported' });
  if (nestsDeeperThan(body, MAX_BODY_DEPTH)) throw Object.assign(new Error('too deep'), { type: 'entity.too.deep' });
}

/** As body-parser decides it: a body is announced by Transfer-Encoding or a non-zero Content-Length. */
function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function bodyParserError(error: { type?: string; status?: number }): ApiError {
  switch (error.type) {
    case 'entity.too.large':
      return new ApiError(413, 'payload_too_large', `The body exceeds ${BODY_LIMIT_BYTES} bytes`);
    case 'entity.parse.failed':
      return new ApiError(400, 'invalid_json', 'The body is not valid JSON');
    case 'entity.too.deep':
      return new ApiError(400, 'invalid_json', `The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported_media_type', 'The body must be UTF-8 encoded JSON');
    default:
      return new ApiError(400, 'invalid_json', 'The body could not be read');
  }
}

/**
 * JSON body parsing for the API routes (docs/api.md §1): only `application/json` in UTF-8 (415
 * otherwise), at most 1 MiB (413), well-formed and at most MAX_BODY_DEPTH levels deep (400
 * `invalid_json`), and an object at the top level.
 * The signed file routes are mounted elsewhere and never pass through this.
 */
export function jsonBody(): RequestHandler {
  const parse = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: () => true, verify: verifyJsonBytes });
  return (request: Request, response: Response, next: NextFunction) => {
    if (!hasBody(request)) return next();
    if (!request.is(['application/json', 'application/*+json'])) {
      return sendError(
        response,
        new ApiError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json'),
      );
    }
    parse(request, response, (error?: unknown) => {
      if (error) return sendError(response, bodyParserError(error as { type?: string }));
      const body: unknown = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        return sendError(response, new ApiError(400, 'invalid_json', 'The body must be a JSON object'));
      }
      next();
    });
  };
}

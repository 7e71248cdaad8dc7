import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseContentType } from 'content-type';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';
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

function contentEncoding(request: Request): string {
  return (request.headers['content-encoding'] ?? '').trim().toLowerCase();
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
  const encoding = contentEncoding(request);
  if (!CONTENT_ENCODINGS.has(encoding)) {
    return new ApiError(415, 'unsupported_media_type', `Content-Encoding ${encoding} is not supported`);
  }
  return undefined;
}

const tooLarge = () => new ApiError(413, 'payload_too_large', `The body exceeds ${BODY_LIMIT_BYTES} bytes`);

/** Why bytes read in full are no body to parse: not UTF-8 (they would be stored with replacement characters), or nested too deep for JSON.parse to recurse into. */
function bytesRefusal(bytes: Buffer): ApiError | undefined {
  if (!isUtf8(bytes)) return new ApiError(400, 'invalid_json', 'The body is not valid UTF-8');
  if (nestsDeeperThan(bytes, MAX_BODY_DEPTH)) {
    return new ApiError(
      400,
      'invalid_json',
      `The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`,
    );
  }
  return undefined;
}

const DECOMPRESSORS = new Map<string, () => Transform>([
  ['gzip', createGunzip],
  ['deflate', createInflate],
  ['br', createBrotliDecompress],
]);

/**
 * Reads the body, decoded, and hands its bytes to `use`, or answers the refusal itself: 413 as soon
 * as the body is known to be over the limit, by its Content-Length, by the bytes come so far or by
 * what they decode to, 400 `invalid_json` for bytes that do not decode. A refusal before the end of
 * the body bounds what is still read as every other refusal's (lingerThenClose): body-parser would
 * read such a body to its end before answering, bounded only by the request timeout. Both limits
 * hold for a compressed body, so that neither a small body that inflates nor a large one that
 * trickles is read on.
 */
function readBody(request: Request, response: Response, encoding: string, use: (bytes: Buffer) => void): void {
  let settled = false;
  const decompressor = DECOMPRESSORS.get(encoding)?.();
  const decoded: Readable = decompressor ? request.pipe(decompressor) : request;
  const chunks: Buffer[] = [];
  let decodedLength = 0;
  let sentLength = 0;
  const stop = () => {
    settled = true;
    request.off('data', countSent);
    decoded.off('data', collect);
    if (decompressor) {
      request.unpipe(decompressor);
      decompressor.destroy();
    }
  };
  const refuse = (refusal: ApiError) => {
    if (settled) return;
    stop();
    sendError(response, refusal);
    // A request read to its end leaves its connection to serve the next one.
    if (!request.readableEnded) lingerThenClose(request, request.socket);
  };
  function countSent(chunk: Buffer) {
    sentLength += chunk.length;
    if (sentLength > BODY_LIMIT_BYTES) refuse(tooLarge());
  }
  function collect(chunk: Buffer) {
    decodedLength += chunk.length;
    if (decodedLength > BODY_LIMIT_BYTES) return refuse(tooLarge());
    chunks.push(chunk);
  }
  if (Number(request.headers['content-length']) > BODY_LIMIT_BYTES) return refuse(tooLarge());
  // The decoded bytes and the request both end before the body is used: bytes after a compressed
  // stream's end are still counted, and no refusal can follow the handler's answer.
  let ends = decompressor ? 2 : 1;
  const ended = () => {
    if (--ends > 0 || settled) return;
    stop();
    use(Buffer.concat(chunks, decodedLength));
  };
  decoded.on('data', collect);
  decoded.once('end', ended);
  if (decompressor) {
    request.on('data', countSent);
    request.once('end', ended);
    decompressor.once('end', () => {
      request.unpipe(decompressor);
      request.resume();
    });
    decompressor.on('error', () => refuse(new ApiError(400, 'invalid_json', 'The body could not be decoded')));
    // A client gone before the end leaves nothing to answer; the decompressor's memory is freed.
    request.once('close', () => {
      if (!request.complete) stop();
    });
  }
}

const BYTE_ORDER_MARK = 0xfeff;

/**
 * The JSON of bytes `bytesRefusal` passed (UTF-8, nested within the limit), or undefined when
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
 * JSON body parsing for the API routes (docs/api.md §1), whatever the method: only
 * `application/json` or a `+json` type, in UTF-8 (415 otherwise), Content-Encoding gzip, deflate or
 * br, at most 1 MiB as sent and once decoded (413, answered as soon as it is known: readBody),
 * valid UTF-8 and valid JSON nested at most MAX_BODY_DEPTH levels (400 `invalid_json`), an object
 * at the top level. A body refused once read in full leaves its keep-alive connection to serve the
 * next request. The signed file routes are outside `/v1` and stream their bytes themselves.
 */
export function apiJsonBody() {
  // Mounted for every path and judged here: a mount path would rewrite and restore every request's
  // URL, bodies or not.
  return (request: Request, response: Response, next: NextFunction): void => {
    if (!hasBody(request.headers) || !JSON_BODY_PATH.test(request.path)) return next();
    const refusal = headRefusal(request);
    if (refusal) return sendError(response, refusal);
    readBody(request, response, contentEncoding(request), (bytes) => {
      const bytesRefused = bytesRefusal(bytes);
      if (bytesRefused) return sendError(response, bytesRefused);
      const body = parsedJson(bytes);
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

import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../errors/api-error';
import { sendError } from '../errors/send-error';

export const BODY_LIMIT_BYTES = 1024 * 1024;

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
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, 'unsupported_media_type', 'The body must be UTF-8 encoded JSON');
    default:
      return new ApiError(400, 'invalid_json', 'The body could not be read');
  }
}

/**
 * JSON body parsing for the API routes (decisions §1): only `application/json` (415 otherwise),
 * at most 1 MiB (413), well-formed (400 `invalid_json`), and an object at the top level.
 * The signed file routes are mounted elsewhere and never pass through this.
 */
export function jsonBody(): RequestHandler {
  const parse = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: () => true });
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

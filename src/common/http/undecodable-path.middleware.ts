import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../errors/api-error';
import { sendError } from '../errors/send-error';

/**
 * A path that does not percent-decode (`/v1/notes/%ZZ`, `%C0%80`, an encoded lone surrogate) names
 * nothing this service has: 404 `not_found`, as an id of the wrong shape is. Runs before routing,
 * whose own decoding failure would be a 400 without a public code.
 */
export function undecodablePathNotFound(): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    if (request.path.includes('%')) {
      try {
        decodeURIComponent(request.path);
      } catch {
        return sendError(response, ApiError.notFound());
      }
    }
    next();
  };
}

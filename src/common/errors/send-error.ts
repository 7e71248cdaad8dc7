import type { Response } from 'express';
import { ApiError } from './api-error';

/** Writes an ApiError as the response. Used by the exception filter and by Express middleware. */
export function sendError(response: Response, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  response.status(error.status).json(error.toBody());
}

import { Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { ApiError } from './api-error';
import { sendJson } from '../http/json-response';
import { ERROR_CODES, isErrorCode } from './error-codes';

const logger = new Logger('Errors');

/**
 * The error as it may go out: one whose code the catalogue lists under its status. The compiler
 * already refuses any other; this catches what a cast slipped past it, so that no code outside
 * docs/api.md §2 ever reaches a client.
 */
function catalogued(error: ApiError): ApiError {
  if (isErrorCode(error.code) && ERROR_CODES[error.code].status === error.status) return error;
  logger.error({ status: error.status, code: error.code, message: error.message }, 'error code not in the catalogue');
  return ApiError.internal();
}

/** Writes an ApiError as the response. Used by the exception filter and before routing. */
export function sendError(response: ServerResponse, error: ApiError): void {
  const sent = catalogued(error);
  for (const [name, value] of Object.entries(sent.headers)) response.setHeader(name, value);
  sendJson(response, sent.status, sent.toBody());
}

import { HttpException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiError } from './api-error';
import { ErrorStatus, FRAMEWORK_EXCEPTION_CODES } from './error-codes';

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

function isDatabaseUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false; // `throw undefined` is a 500, not a crash here
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') {
    return error instanceof Error && /Connection terminated|timeout exceeded when trying to connect/i.test(error.message);
  }
  // Class 08: connection exception; 57P0x: the server is shutting down or restarting.
  return CONNECTION_ERROR_CODES.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code);
}

/**
 * Translates anything thrown into an ApiError. PostgreSQL errors are mapped by SQLSTATE and never
 * leak their message. Returns `undefined` for an unexpected error: the caller logs it and answers 500.
 */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 404) return ApiError.notFound('Route');
    const code = FRAMEWORK_EXCEPTION_CODES[status as ErrorStatus];
    return code === undefined ? undefined : new ApiError(status as ErrorStatus, code, error.message);
  }
  if (error instanceof QueryFailedError) {
    const code = (error.driverError as { code?: string } | undefined)?.code;
    if (code === '23505') return new ApiError(409, 'duplicate_value', 'A record with this value already exists');
    // Text PostgreSQL cannot hold (NUL, invalid encoding) that a check upstream let through.
    if (code === '22021' || code === '22P05') {
      return new ApiError(422, 'invalid_value', 'A text value contains a character that cannot be stored (NUL)');
    }
    if (code === '40001' || code === '40P01') {
      return new ApiError(409, 'conflict', 'The request conflicted with a concurrent one; retry it');
    }
    if (code && isDatabaseUnavailable({ code })) return databaseUnavailable();
    return undefined;
  }
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  return undefined;
}

function databaseUnavailable(): ApiError {
  return new ApiError(503, 'database_unavailable', 'The database is unavailable; retry later', undefined, {
    'Retry-After': '1',
  });
}

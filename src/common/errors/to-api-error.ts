import { HttpException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiError } from './api-error';
import { ErrorStatus, FRAMEWORK_EXCEPTION_CODES } from './error-codes';

/** Socket errors of a connection to PostgreSQL that failed, broke or could not be made. */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
]);

/**
 * SQLSTATEs of a server that dropped the session or cannot take one: class 08 (connection
 * exception), class 53 (insufficient resources, e.g. 53300 too many connections), 57P01 admin
 * shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 57P05 idle session timeout, 25P03 idle
 * in transaction timeout. Not 57014 (a cancelled statement: the connection is fine).
 */
const CONNECTION_LOST_SQLSTATE = /^(08...|53...|57P0[1235]|25P03)$/;

/**
 * What pg and pg-pool raise, without any code, when a connection ends under a query ("Connection
 * terminated unexpectedly", "Connection terminated", "… due to connection timeout"), is broken or
 * closed ("Client has encountered a connection error and is not queryable", "Client was closed and
 * is not queryable"), cannot be had in time (pool exhausted: "timeout exceeded when trying to
 * connect"), or belongs to a pool closed by shutdown; and a query that got no answer in time.
 */
const CONNECTION_LOST_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Cannot use a pool after calling end on the pool|Query read timeout)/;

/** How deep to look through wrappers: QueryFailedError → driverError, `cause`, AggregateError. */
const MAX_WRAPPER_DEPTH = 4;

/**
 * Whether `error` (or what it wraps) says the database connection was lost or could not be made.
 * A QueryFailedError from TypeORM wraps the pg error as `driverError`; pg-pool chains its timeout
 * to the socket error as `cause`; a connect to a host with several addresses fails with an
 * AggregateError of one error per address.
 */
export function isConnectionLost(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > MAX_WRAPPER_DEPTH) return false;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || CONNECTION_LOST_SQLSTATE.test(code)))
    return true;
  if (error instanceof Error && typeof message === 'string' && CONNECTION_LOST_MESSAGE.test(message)) return true;
  const wrapped = [driverError, cause, ...(Array.isArray(errors) ? (errors as unknown[]) : [])];
  return wrapped.some((inner) => inner !== error && isConnectionLost(inner, depth + 1));
}

/**
 * Translates anything thrown into an ApiError. PostgreSQL errors are mapped by SQLSTATE and never
 * leak their message; every way of losing the database connection is a 503 the client may retry.
 * Returns `undefined` for an unexpected error: the caller logs it and answers 500.
 */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 404) return ApiError.notFound('Route');
    const code = FRAMEWORK_EXCEPTION_CODES[status as ErrorStatus];
    return code === undefined ? undefined : new ApiError(status as ErrorStatus, code, error.message);
  }
  if (isConnectionLost(error)) return databaseUnavailable();
  if (error instanceof QueryFailedError) {
    const code = (error.driverError as { code?: string } | undefined)?.code;
    if (code === '23505') return new ApiError(409, 'duplicate_value', 'A record with this value already exists');
    // Text PostgreSQL cannot hold (NUL, invalid encoding) that a check upstream let through.
    if (code === '22021' || code === '22P05') {
      return new ApiError(422, 'invalid_value', 'A text value contains a character that cannot be stored (NUL)');
    }
    // A serialization failure, a deadlock, a lock not granted in time (a feed read that kept meeting writers).
    if (code === '40001' || code === '40P01' || code === '55P03') {
      return new ApiError(409, 'conflict', 'The request conflicted with a concurrent one; retry it');
    }
  }
  return undefined;
}

/** 503 `database_unavailable`, with the `Retry-After` that tells clients and proxies to come back. */
export function databaseUnavailable(): ApiError {
  return new ApiError(503, 'database_unavailable', 'The database is unavailable; retry later', undefined, {
    'Retry-After': '1',
  });
}

import type { Response } from 'supertest';
import { ApiError } from '../../src/common/errors/api-error';
import { ERROR_CODES, ERROR_TYPES, ErrorStatus, isErrorCode } from '../../src/common/errors/error-codes';
import { requestOf } from './request-of';

/** Stack frames, SQL and driver wording: never in an error body (docs/api.md §2). */
const LEAKS =
  /\bat .+\.(ts|js):\d+|\bSELECT\b.+\bFROM\b|\bINSERT INTO\b|\bUPDATE\s+\S+\s+SET\b|\bDELETE FROM\b|QueryFailedError|relation "|violates|Key \(/i;

/**
 * Why an error response disagrees with the error catalogue: its code is not in it, or belongs to
 * another status, or comes with another type. `undefined` when it agrees.
 */
export function catalogueMismatch(status: number, body: unknown): string | undefined {
  const error = (body as { error?: { type?: unknown; code?: unknown } } | null | undefined)?.error;
  const code = error?.code;
  if (!isErrorCode(code)) return `code ${JSON.stringify(code)} is not in the error catalogue`;
  const entry = ERROR_CODES[code];
  if (entry.status !== status) return `code ${code} belongs to status ${entry.status}, not ${status}`;
  if (error?.type !== entry.type)
    return `type ${JSON.stringify(error?.type)} is not ${entry.type}, the type of ${code}`;
  return undefined;
}

/** Asserts the error body of docs/api.md §2 with its status, type, code and, when given, param. */
export function expectError(response: Response, status: number, code: string, param?: string): void {
  const context = `${requestOf(response).method ?? ''} ${requestOf(response).path ?? ''} -> ${response.status} ${JSON.stringify(response.body)}`;
  expect({ status: response.status, code: response.body?.error?.code, context }).toEqual({ status, code, context });
  expect({ catalogue: catalogueMismatch(response.status, response.body), context }).toEqual({
    catalogue: undefined,
    context,
  });
  expect(response.headers['content-type']).toMatch(/^application\/json\b/);
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(response.body.error.type).toBe(ERROR_TYPES[status as ErrorStatus]);
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.message).not.toMatch(LEAKS);
  // Nothing but the four members (no stack, no driver detail), and the resync cursor of a feed cursor expired.
  const members = ['type', 'code', 'message', 'param', ...(code === 'cursor_expired' ? ['resyncCursor'] : [])];
  expect(Object.keys(response.body.error).filter((key) => !members.includes(key))).toEqual([]);
  if (code === 'cursor_expired') expect(typeof response.body.error.resyncCursor).toBe('string');
  if (param !== undefined) expect(response.body.error.param).toBe(param);
}

/** The ApiError that `run` throws; any other error is rethrown, and none fails the test. */
export function thrownApiError(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('No ApiError was thrown: the input was taken');
}

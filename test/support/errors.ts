import type { Response } from 'supertest';
import { ERROR_TYPES, ErrorStatus } from '../../src/common/errors/api-error';
import { requestOf } from './request-of';

/** Stack frames, SQL and driver wording: never in an error body (decisions §2). */
const LEAKS =
  /\bat .+\.(ts|js):\d+|\bSELECT\b.+\bFROM\b|\bINSERT INTO\b|\bUPDATE\s+\S+\s+SET\b|\bDELETE FROM\b|QueryFailedError|relation "|violates|Key \(/i;

/** Asserts the error body of decisions §2 with its status, type, code and, when given, param. */
export function expectError(response: Response, status: number, code: string, param?: string): void {
  const context = `${requestOf(response).method ?? ''} ${requestOf(response).path ?? ''} -> ${response.status} ${JSON.stringify(response.body)}`;
  expect({ status: response.status, code: response.body?.error?.code, context }).toEqual({ status, code, context });
  expect(response.headers['content-type']).toMatch(/^application\/json\b/);
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(response.body.error.type).toBe(ERROR_TYPES[status as ErrorStatus]);
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.message).not.toMatch(LEAKS);
  // Nothing but the four members (no stack, no driver detail).
  expect(Object.keys(response.body.error).filter((key) => !['type', 'code', 'message', 'param'].includes(key))).toEqual([]);
  if (param !== undefined) expect(response.body.error.param).toBe(param);
}

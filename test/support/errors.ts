import type { Response } from 'supertest';
import { requestOf } from './request-of';

/** Asserts the error body of decisions §2 with its status, code and, when given, param. */
export function expectError(response: Response, status: number, code: string, param?: string): void {
  const context = `${requestOf(response).method ?? ''} ${requestOf(response).path ?? ''} -> ${response.status} ${JSON.stringify(response.body)}`;
  expect({ status: response.status, code: response.body?.error?.code, context }).toEqual({ status, code, context });
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(typeof response.body.error.type).toBe('string');
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.message).not.toMatch(/\bat .+\.(ts|js):\d+|SELECT |INSERT |QueryFailedError/);
  if (param !== undefined) expect(response.body.error.param).toBe(param);
}

import { Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { ApiError } from './api-error';
import { sendError } from './send-error';

/** What sendError wrote: status, headers and JSON body. */
function sent(error: ApiError): { status?: number; headers: Record<string, string>; body?: unknown } {
  const written: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const response = {
    set statusCode(status: number) {
      written.status = status;
    },
    setHeader: (name: string, value: string | number) => {
      if (name !== 'Content-Type' && name !== 'Content-Length') written.headers[name] = String(value);
    },
    end: (json: string) => (written.body = JSON.parse(json)),
  };
  sendError(response as unknown as ServerResponse, error);
  return written;
}

describe('sendError', () => {
  let logged: jest.SpyInstance;
  beforeEach(() => {
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => logged.mockRestore());

  it('writes a catalogued error with its status, type, headers and param', () => {
    const error = new ApiError(429, 'rate_limited', 'slow down', undefined, { 'Retry-After': '3' });
    expect(sent(error)).toEqual({
      status: 429,
      headers: { 'Retry-After': '3' },
      body: { error: { type: 'too_many_requests', code: 'rate_limited', message: 'slow down' } },
    });
    expect(logged).not.toHaveBeenCalled();
  });

  // Each of these fails `npm run typecheck` without its @ts-expect-error: a cast or an `any` is the
  // only way to build one, and then it must still not reach a client.
  it.each([
    // @ts-expect-error a typo is not a code
    ['a code not in the catalogue', () => new ApiError(404, 'not_fuond', 'no such thing')],
    // @ts-expect-error invalid_value is a 422, not a 400
    ['a code under another status than its own', () => new ApiError(400, 'invalid_value', 'refused')],
    // @ts-expect-error 418 is no status of the catalogue
    ['a status the catalogue does not have', () => new ApiError(418, 'not_found', 'teapot')],
    [
      'a name of Object.prototype',
      () => new ApiError(400, 'constructor' as never, 'x', undefined, { 'Retry-After': '1' }),
    ],
  ])('answers 500 internal_error, and logs it, for %s', (_case, make) => {
    const error = make();
    expect(sent(error)).toEqual({
      status: 500,
      headers: {},
      body: {
        error: { type: 'internal_server_error', code: 'internal_error', message: 'An unexpected error occurred' },
      },
    });
    expect(logged).toHaveBeenCalledWith(
      { status: error.status, code: error.code, message: error.message },
      'error code not in the catalogue',
    );
  });
});

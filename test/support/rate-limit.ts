import type { Response } from 'supertest';
import type { RateCategory } from '../../src/common/throttling/rate-category';

export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  reset: number;
  resetIn: number;
}

/**
 * Asserts the rate-limit headers of docs/api.md §4 for the bucket `category` with `limit` requests
 * per second, consistent with each other, and returns their values.
 */
export function expectRateLimitHeaders(response: Response, category: RateCategory, limit: number): RateLimitHeaders {
  const h = response.headers;
  const context = `${response.status} ${JSON.stringify(h)}`;
  expect({ context, limit: h['x-ratelimit-limit'] }).toEqual({ context, limit: String(limit) });
  expect(h['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(h['x-ratelimit-reset']).toMatch(/^\d+$/);
  expect(h['ratelimit-policy']).toBe(`"${category}";q=${limit};w=1`);
  const remaining = Number(h['x-ratelimit-remaining']);
  expect(remaining).toBeLessThanOrEqual(limit - 1);
  const match = /^"([a-z]+)";r=(\d+);t=(\d+)$/.exec(h['ratelimit'] ?? '');
  expect(match).not.toBeNull();
  const [, name, r, t] = match!;
  expect({ name, r: Number(r) }).toEqual({ name: category, r: remaining });
  // A one-second window resets within one (whole) second.
  const resetIn = Number(t);
  expect(resetIn).toBe(1);
  // X-RateLimit-Reset is a unix time, in whole seconds, `t` seconds from now (allowing the second
  // the response took to arrive).
  const reset = Number(h['x-ratelimit-reset']);
  const now = Date.now() / 1000;
  expect(reset).toBeGreaterThanOrEqual(Math.floor(now));
  expect(reset).toBeLessThanOrEqual(Math.ceil(now) + resetIn + 1);
  return { limit, remaining, reset, resetIn };
}

/** Asserts that a response carries none of the rate-limit headers. */
export function expectNoRateLimitHeaders(response: Response): void {
  for (const name of [
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'ratelimit-policy',
    'ratelimit',
  ]) {
    expect({ name, value: response.headers[name] }).toEqual({ name, value: undefined });
  }
}

/** The Retry-After of a 429: whole seconds, at least 1, at most `max`. */
export function expectRetryAfter(response: Response, max: number): number {
  expect(response.headers['retry-after']).toMatch(/^\d+$/);
  const seconds = Number(response.headers['retry-after']);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(max);
  return seconds;
}

import { retryAfterSeconds } from './errors';

export type Fetch = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt, each after the `Retry-After` the answer gave. */
  maxRetries: number;
  /** A longer `Retry-After` is not waited for: the error goes to the caller, who may know better. */
  maxDelaySeconds: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 3, maxDelaySeconds: 30 };

/** The answers that say "the same request will work later": rate limited, database unavailable. */
const RETRIED_STATUSES = new Set([429, 503]);

/** The methods the service de-duplicates by `Idempotency-Key` (docs/api.md §5): every write under /v1. */
const KEYED_METHODS = new Set(['POST', 'DELETE']);

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends a request, and again after the `Retry-After` of a 429 or 503, at most `maxRetries` times.
 * A write is retried only because it carries an `Idempotency-Key`: the caller's, else one made here
 * once for all its attempts, so a write that did land before its answer was lost is replayed by
 * the service, not made twice.
 */
export function retryingFetch(fetch: Fetch, retry: RetryOptions): Fetch {
  return async (request) => {
    if (KEYED_METHODS.has(request.method) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
    for (let retries = 0; ; retries += 1) {
      const response = await fetch(request.clone());
      const delaySeconds = RETRIED_STATUSES.has(response.status) ? retryAfterSeconds(response.headers) : undefined;
      if (delaySeconds === undefined || delaySeconds > retry.maxDelaySeconds || retries >= retry.maxRetries) return response;
      await response.body?.cancel();
      await wait(delaySeconds * 1000);
    }
  };
}

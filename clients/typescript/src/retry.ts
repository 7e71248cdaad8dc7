import { retryAfterSeconds } from './errors';

export type Fetch = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt: after the `Retry-After` of a 429 or 503, or after a network failure. */
  maxRetries: number;
  /** A longer `Retry-After` is not waited for: the error goes to the caller, who may know better. */
  maxDelaySeconds: number;
  /** The wait before the first retry after a network failure; it doubles at each next one (with jitter), up to maxDelaySeconds. */
  networkBackoffMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 3, maxDelaySeconds: 30, networkBackoffMs: 250 };

/** How long one attempt may take, headers and body, before it is abandoned as a network failure. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The answers that say "the same request will work later": rate limited, database unavailable. */
const RETRIED_STATUSES = new Set([429, 503]);

/** The methods the service de-duplicates by `Idempotency-Key` (docs/api.md §5): every write under /v1. */
const KEYED_METHODS = new Set(['POST', 'DELETE']);

/** Methods that change nothing, or the same thing however often they are sent. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT']);

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  // The caller's abort reason, passed on unchanged as fetch does (an AbortError DOMException unless the caller gave one).
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason, as above
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The wait after the `attempt`-th network failure (0 for the first): doubling, with full jitter, capped. */
function backoffMs(attempt: number, retry: RetryOptions): number {
  const ceiling = Math.min(retry.networkBackoffMs * 2 ** attempt, retry.maxDelaySeconds * 1000);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Sends a request, each attempt bounded by `timeoutMs`, and again:
 * - after the `Retry-After` of a 429 or 503, at most `maxRetries` times;
 * - after a network failure (no answer, or none within `timeoutMs`), with a growing backoff, when
 *   sending it again is safe: an idempotent method, or a write with its `Idempotency-Key`.
 *
 * Every write carries an `Idempotency-Key`: the caller's, else one made here once for all its
 * attempts, so a write that did land before its answer was lost is replayed by the service, not
 * made twice. The caller's AbortSignal (`signal`) ends the call at once, during an attempt or a wait.
 */
export function retryingFetch(fetch: Fetch, retry: RetryOptions, timeoutMs: number): Fetch {
  return async (request) => {
    if (KEYED_METHODS.has(request.method) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
    const resendable = IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
    const caller = request.signal;
    for (let retries = 0; ; retries += 1) {
      let response: Response;
      try {
        response = await fetch(
          new Request(request.clone(), { signal: AbortSignal.any([caller, AbortSignal.timeout(timeoutMs)]) }),
        );
      } catch (error) {
        if (caller.aborted || !resendable || retries >= retry.maxRetries) throw error;
        await wait(backoffMs(retries, retry), caller);
        continue;
      }
      const delaySeconds = RETRIED_STATUSES.has(response.status) ? retryAfterSeconds(response.headers) : undefined;
      if (delaySeconds === undefined || delaySeconds > retry.maxDelaySeconds || retries >= retry.maxRetries)
        return response;
      await response.body?.cancel();
      await wait(delaySeconds * 1000, caller);
    }
  };
}

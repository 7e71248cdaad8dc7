/**
 * Counts the requests served uncounted because the rate-limit store failed (docs/api.md §4:
 * `rate_limit_store_errors_total`). Rate limiting declares what it reports and the service's
 * metrics provide it (ObservabilityModule), so that this layer does not depend on them.
 */
export abstract class RateLimitStoreFailures {
  abstract count(): void;
}

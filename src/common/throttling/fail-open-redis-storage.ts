import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import Redis from 'ioredis';

/** A Redis that answers takes well under a millisecond; one that does not must not hold requests. */
const COMMAND_TIMEOUT_MS = 500;
/** After a failure, requests skip Redis this long instead of each paying for the next failure. */
const COOL_DOWN_MS = 1000;
const WARNING_INTERVAL_MS = 1000;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

const uncounted = new WeakSet<ThrottlerStorageRecord>();

/** Whether a record stands for a request that could not be counted (the store failed). */
export function isUncounted(record: ThrottlerStorageRecord): boolean {
  return uncounted.has(record);
}

/**
 * Rate-limit counters in Redis, shared by every instance, that FAIL OPEN: when Redis is down,
 * slow or refusing, the request is served uncounted (logged at most once a second and counted in
 * `rate_limit_store_errors_total`) rather than answered 500 or 503. The service's durability is
 * PostgreSQL; rate limits protect it from bursts, and an outage of the counters must not become an
 * outage of the API. Commands fail at once while disconnected (no offline queue) and within 500 ms
 * when Redis hangs; after a failure Redis is skipped for a second, then tried again, so limits
 * apply again as soon as it is back.
 *
 * The client is closed on application shutdown, after the HTTP server has stopped (Nest closes the
 * server between the module-destroy and the application-shutdown hooks), never while requests
 * are still being counted.
 */
export class FailOpenRedisStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis;
  private readonly counters: ThrottlerStorageRedisService;
  private skipUntil = 0;
  private lastWarning = 0;
  private closing: Promise<void> | undefined;

  constructor(
    url: string,
    private readonly onFailure: () => void,
  ) {
    this.redis = new Redis(url, {
      keyPrefix: 'records:',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 2000,
    });
    // ioredis reconnects on its own; without a listener it would print every failed attempt.
    this.redis.on('error', (error: Error) => this.warn(`Redis connection: ${error.message}`));
    this.counters = new ThrottlerStorageRedisService(this.redis);
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
    hits = 1,
  ): Promise<ThrottlerStorageRecord> {
    if (Date.now() >= this.skipUntil) {
      try {
        // The library's script counts one hit: the others are added to its counter (its key) first.
        if (hits > 1) await this.redis.incrby(`{${key}:${throttlerName}}:hits`, hits - 1);
        return await this.counters.increment(key, ttl, limit, blockDuration, throttlerName);
      } catch (error) {
        this.skipUntil = Date.now() + COOL_DOWN_MS;
        this.warn(`serving requests without rate limits: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.onFailure();
    const record = { totalHits: 0, timeToExpire: Math.ceil(ttl / 1000), isBlocked: false, timeToBlockExpire: 0 };
    uncounted.add(record);
    return record;
  }

  /** QUIT lets Redis close the connection cleanly; a Redis that is gone or hangs is just dropped. */
  onApplicationShutdown(): Promise<void> {
    this.closing ??= this.redis.quit().then(
      () => undefined,
      () => this.redis.disconnect(),
    );
    return this.closing;
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARNING_INTERVAL_MS) return;
    this.lastWarning = now;
    this.logger.warn(`rate-limit store unavailable; ${message}`);
  }
}

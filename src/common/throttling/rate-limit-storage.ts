import { ThrottlerStorage } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import { FailOpenRedisStorage } from './fail-open-redis-storage';
import { InProcessRateLimitStorage } from './in-process-rate-limit-storage';

/** A throttler storage that counts a request as `hits` hits (the inputs of a batch), 1 unless told. */
export interface WeightedThrottlerStorage extends ThrottlerStorage {
  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
    hits?: number,
  ): ReturnType<ThrottlerStorage['increment']>;
}

/**
 * The counters of the per-workspace rate limits (docs/api.md §4) and of failed authentications.
 * With REDIS_URL they live in Redis, shared by every instance, and fail open (FailOpenRedisStorage,
 * calling `onStoreFailure` for each request it could not count); else in this process, counted the
 * same way (InProcessRateLimitStorage).
 */
export function createRateLimitStorage(config: AppConfig, onStoreFailure: () => void): WeightedThrottlerStorage {
  return config.redisUrl ? new FailOpenRedisStorage(config.redisUrl, onStoreFailure) : new InProcessRateLimitStorage();
}

import { ThrottlerStorage } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import { FailOpenRedisStorage } from './fail-open-redis-storage';
import { InProcessRateLimitStorage } from './in-process-rate-limit-storage';

/**
 * The counters of the per-workspace rate limits (docs/api.md §4) and of failed authentications.
 * With REDIS_URL they live in Redis, shared by every instance, and fail open (FailOpenRedisStorage,
 * calling `onStoreFailure` for each request it could not count); else in this process, counted the
 * same way (InProcessRateLimitStorage).
 */
export function createRateLimitStorage(config: AppConfig, onStoreFailure: () => void): ThrottlerStorage {
  return config.redisUrl ? new FailOpenRedisStorage(config.redisUrl, onStoreFailure) : new InProcessRateLimitStorage();
}

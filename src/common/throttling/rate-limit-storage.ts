import type { Provider } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import { MetricsService } from '../../modules/observability/metrics.service';
import { FailOpenRedisStorage } from './fail-open-redis-storage';
import { InProcessRateLimitStorage } from './in-process-rate-limit-storage';

/**
 * The counters of the per-workspace rate limits (docs/api.md §4) and of failed authentications.
 * With REDIS_URL they live in Redis, shared by every instance, and fail open (FailOpenRedisStorage);
 * else in this process, counted the same way (InProcessRateLimitStorage).
 */
export const rateLimitStorage: Provider = {
  provide: ThrottlerStorage,
  inject: [AppConfig, MetricsService],
  useFactory: (config: AppConfig, metrics: MetricsService): ThrottlerStorage =>
    config.redisUrl
      ? new FailOpenRedisStorage(config.redisUrl, () => metrics.countRateLimitStoreError())
      : new InProcessRateLimitStorage(),
};

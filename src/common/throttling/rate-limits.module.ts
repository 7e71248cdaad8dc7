import type { DynamicModule, Type } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import { BATCH_ITEMS_THROTTLER, RATE_CATEGORIES } from './rate-category';
import { createRateLimitStorage } from './rate-limit-storage';
import { RateLimitStoreFailures } from './rate-limit-store-failures';

/** Each bucket counts in a fixed window, and the request over its limit blocks it for one window. */
const WINDOW_MS = 1000;

/**
 * One named throttler per rate category (docs/api.md §4), its limit from `RATE_LIMIT_<CATEGORY>`,
 * and `batch-items` for the inputs of batch writes (`RATE_LIMIT_BATCH_ITEMS`),
 * and the storage of the counters. The storage counts its failures through the RateLimitStoreFailures
 * that `failuresCounter` exports: observability, a layer this one may not import. Global: the
 * rate-limit guard and the failed-authentication limiter share the storage.
 */
export function rateLimitsModule(failuresCounter: Type<unknown>): DynamicModule {
  return ThrottlerModule.forRootAsync({
    imports: [failuresCounter],
    inject: [AppConfig, RateLimitStoreFailures],
    useFactory: (config: AppConfig, failures: RateLimitStoreFailures) => ({
      throttlers: [
        ...RATE_CATEGORIES.map((name) => ({
          name,
          limit: config.rateLimits[name],
          ttl: WINDOW_MS,
          blockDuration: WINDOW_MS,
        })),
        { name: BATCH_ITEMS_THROTTLER, limit: config.rateLimits.batchItems, ttl: WINDOW_MS, blockDuration: WINDOW_MS },
      ],
      storage: createRateLimitStorage(config, () => failures.count()),
    }),
  });
}

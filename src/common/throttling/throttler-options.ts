import { ExecutionContext } from '@nestjs/common';
import { ThrottlerModuleOptions } from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import type { MetricsService } from '../../modules/observability/metrics.service';
import type { AuthenticatedRequest } from '../auth/auth-context';
import { FailOpenRedisStorage } from './fail-open-redis-storage';
import { RATE_CATEGORIES, rateCategoryOf } from './rate-category';

const WINDOW_MS = 1000;

/**
 * One named throttler per category (docs/api.md §4). Named throttlers all apply to every route
 * unless skipped, so each skips the routes of other categories; buckets are keyed by workspace.
 * With REDIS_URL the counters live in Redis, shared by every instance, and fail open (see
 * FailOpenRedisStorage).
 */
export function throttlerOptions(config: AppConfig, metrics: MetricsService): ThrottlerModuleOptions {
  return {
    throttlers: RATE_CATEGORIES.map((category) => ({
      name: category,
      ttl: WINDOW_MS,
      limit: config.rateLimits[category],
      skipIf: (context: ExecutionContext) => rateCategoryOf(context) !== category,
    })),
    getTracker: (request: Record<string, unknown>) => (request as unknown as AuthenticatedRequest).auth.workspaceId,
    generateKey: (_context: ExecutionContext, tracker: string, name: string) => `rate:${name}:${tracker}`,
    storage: config.redisUrl
      ? new FailOpenRedisStorage(config.redisUrl, () => metrics.countRateLimitStoreError())
      : undefined,
  };
}

import { ExecutionContext } from '@nestjs/common';
import { ThrottlerModuleOptions } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { Request } from 'express';
import { AppConfig } from '../../config/app-config';
import { AuthenticatedRequest } from '../auth/auth-context';
import { RATE_CATEGORY } from '../auth/auth.decorators';
import { RATE_CATEGORIES, RateCategory } from './rate-category';

const WINDOW_MS = 1000;

export function rateCategoryOf(context: ExecutionContext): RateCategory | undefined {
  return Reflect.getMetadata(RATE_CATEGORY, context.getHandler()) as RateCategory | undefined;
}

/**
 * One named throttler per category (decisions §4). Named throttlers all apply to every route
 * unless skipped, so each skips the routes of other categories; buckets are keyed by workspace.
 * With REDIS_URL the counters live in Redis, shared by every instance.
 */
export function throttlerOptions(config: AppConfig): ThrottlerModuleOptions {
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
      ? new ThrottlerStorageRedisService(config.redisUrl, { maxRetriesPerRequest: 2, keyPrefix: 'records:' })
      : undefined,
  };
}

export function isAuthenticated(request: Request): request is AuthenticatedRequest {
  return (request as Partial<AuthenticatedRequest>).auth !== undefined;
}

import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { isAuthenticated } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';
import { isUncounted } from './fail-open-redis-storage';
import { rateCategoryOf } from './rate-category';

const WINDOW_MS = 1000;
const WINDOW_SECONDS = WINDOW_MS / 1000;

/**
 * Fourth global guard: counts the request in its workspace's bucket for the route's category
 * (docs/api.md §4) and writes the rate-limit headers. One counter per request, looked up by a key
 * made here: @nestjs/throttler's guard resolved every named throttler's options through the
 * reflector on every request, a tenth of the CPU of a read. A request the store could not count
 * (Redis down, see FailOpenRedisStorage) is served without the headers.
 */
@Injectable()
export class WorkspaceRateLimitGuard implements CanActivate {
  constructor(
    @Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const category = rateCategoryOf(context);
    if (category === undefined || !isAuthenticated(request)) return true;
    const limit = this.config.rateLimits[category];
    const key = `rate:${category}:${request.auth.workspaceId}`;
    const record = await this.storage.increment(key, WINDOW_MS, limit, WINDOW_MS, category);
    if (isUncounted(record)) return true;
    const { totalHits, timeToExpire, isBlocked, timeToBlockExpire } = record;
    const resetIn = Math.max(1, isBlocked ? timeToBlockExpire : timeToExpire);
    const remaining = isBlocked ? 0 : Math.max(0, limit - totalHits);
    context.switchToHttp().getResponse<Response>().set({
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(remaining),
      'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + resetIn),
      'RateLimit-Policy': `"${category}";q=${limit};w=${WINDOW_SECONDS}`,
      RateLimit: `"${category}";r=${remaining};t=${resetIn}`,
    });
    if (isBlocked) {
      throw new ApiError(
        429,
        'rate_limited',
        `Rate limit of ${limit} ${category} requests per ${WINDOW_SECONDS}s exceeded for this workspace`,
        undefined,
        { 'Retry-After': String(resetIn) },
      );
    }
    return true;
  }
}

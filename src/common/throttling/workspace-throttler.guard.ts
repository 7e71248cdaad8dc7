import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerRequest } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { isAuthenticated } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';
import { isUncounted } from './fail-open-redis-storage';
import { rateCategoryOf } from './rate-category';

/**
 * Fourth global guard: counts the request in its workspace's bucket for the route's category and
 * writes the rate-limit headers itself (the library's carry the throttler name). A request the
 * store could not count (Redis down, see FailOpenRedisStorage) is served without those headers.
 */
@Injectable()
export class WorkspaceThrottlerGuard extends ThrottlerGuard {
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    return !isAuthenticated(request) || rateCategoryOf(context) === undefined;
  }

  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, blockDuration, getTracker, generateKey } = props;
    const request = context.switchToHttp().getRequest<Request>();
    const response = context.switchToHttp().getResponse<Response>();
    const name = throttler.name!;
    const key = generateKey(context, await getTracker(request as never, context), name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    // The store failed and the request goes through uncounted: no count to report either.
    if (isUncounted(record)) return true;
    const { totalHits, timeToExpire, isBlocked, timeToBlockExpire } = record;
    const windowSeconds = Math.max(1, Math.round(ttl / 1000));
    const resetIn = Math.max(1, isBlocked ? timeToBlockExpire : timeToExpire);
    const remaining = isBlocked ? 0 : Math.max(0, limit - totalHits);
    response.setHeader('X-RateLimit-Limit', String(limit));
    response.setHeader('X-RateLimit-Remaining', String(remaining));
    response.setHeader('X-RateLimit-Reset', String(Math.ceil(Date.now() / 1000) + resetIn));
    response.setHeader('RateLimit-Policy', `"${name}";q=${limit};w=${windowSeconds}`);
    response.setHeader('RateLimit', `"${name}";r=${remaining};t=${resetIn}`);
    if (isBlocked) {
      throw new ApiError(
        429,
        'rate_limited',
        `Rate limit of ${limit} ${name} requests per ${windowSeconds}s exceeded for this workspace`,
        undefined,
        { 'Retry-After': String(resetIn) },
      );
    }
    return true;
  }
}

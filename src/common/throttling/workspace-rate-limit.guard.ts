import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail, ThrottlerRequest } from '@nestjs/throttler';
import type { AuthContext } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';
import { isUncounted } from './fail-open-redis-storage';
import { BATCH_ITEMS_THROTTLER, batchItemsOf, RATE_CATEGORIES, RateCategory, rateCategoryOf } from './rate-category';
import type { WeightedThrottlerStorage } from './rate-limit-storage';

/** What the guard reads of a request and writes to a response. */
interface RateLimitedRequest {
  auth?: AuthContext;
}
interface HeaderWriter {
  setHeader(name: string, value: string): unknown;
}

/** Everything of a bucket's count but the request: resolved once, at startup. */
type BucketOptions = Omit<ThrottlerRequest, 'context'>;

/**
 * Fourth global guard: counts the request in its workspace's bucket for the route's category
 * (docs/api.md §4) and writes the rate-limit headers. The buckets are ThrottlerModule's named
 * throttlers `read`, `write` and `search`.
 *
 * ThrottlerGuard's own `canActivate` counts every named throttler on every route and resolves
 * each one's options through the reflector per request (18 µs of CPU a request in a tight loop,
 * against 2 µs here); here a route is counted by its `@Endpoint` category alone, with options
 * resolved at startup. `@Throttle()` and `@SkipThrottle()` are therefore not read: routes
 * without a category (public, operator) are not limited. A request the store could not count
 * (Redis down, see FailOpenRedisStorage) is served without the headers.
 */
@Injectable()
export class WorkspaceRateLimitGuard extends ThrottlerGuard {
  private buckets: Record<RateCategory, BucketOptions>;
  private batchItems: BucketOptions;

  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    const getTracker = this.getTracker.bind(this);
    const generateKey = this.generateKey.bind(this);
    const bucket = (name: string): BucketOptions => {
      const throttler = this.throttlers.find((candidate) => candidate.name === name);
      if (throttler === undefined) throw new Error(`no "${name}" throttler is configured`);
      const { limit, ttl, blockDuration = ttl } = throttler;
      if (typeof limit !== 'number' || typeof ttl !== 'number' || typeof blockDuration !== 'number') {
        throw new Error(`the "${name}" throttler needs a fixed limit and ttl: they are read once, at startup`);
      }
      return { throttler, limit, ttl, blockDuration, getTracker, generateKey };
    };
    this.buckets = Object.fromEntries(RATE_CATEGORIES.map((name) => [name, bucket(name)])) as Record<RateCategory, BucketOptions>;
    this.batchItems = bucket(BATCH_ITEMS_THROTTLER);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const category = rateCategoryOf(context);
    if (category === undefined) return true;
    if (context.switchToHttp().getRequest<RateLimitedRequest>().auth === undefined) return true;
    await this.handleRequest({ context, ...this.buckets[category] });
    const items = batchItemsOf(context);
    if (items > 0) await this.countBatchItems(context, items);
    return true;
  }

  /**
   * A batch's inputs, counted in the workspace's `batch-items` throttler after the call was counted
   * in its bucket, with headers of their own; over the limit, the call is 429 before it runs.
   */
  private async countBatchItems(context: ExecutionContext, items: number): Promise<void> {
    const { limit, ttl, blockDuration } = this.batchItems;
    const tracker = await this.getTracker(context.switchToHttp().getRequest<RateLimitedRequest>());
    const key = this.generateKey(context, tracker, BATCH_ITEMS_THROTTLER);
    const storage = this.storageService as WeightedThrottlerStorage;
    const record = await storage.increment(key, ttl, limit, blockDuration, BATCH_ITEMS_THROTTLER, items);
    if (isUncounted(record)) return;
    const { totalHits, timeToExpire, isBlocked, timeToBlockExpire } = record;
    const resetIn = Math.max(1, isBlocked ? timeToBlockExpire : timeToExpire);
    const response = context.switchToHttp().getResponse<HeaderWriter>();
    response.setHeader('X-RateLimit-Batch-Items-Limit', String(limit));
    response.setHeader('X-RateLimit-Batch-Items-Remaining', String(isBlocked ? 0 : Math.max(0, limit - totalHits)));
    response.setHeader('X-RateLimit-Batch-Items-Reset', String(Math.ceil(Date.now() / 1000) + resetIn));
    if (isBlocked) {
      throw new ApiError(
        429,
        'rate_limited',
        `Rate limit of ${limit} batch inputs per ${ttl / 1000}s exceeded for this workspace`,
        undefined,
        { 'Retry-After': String(Math.max(1, timeToBlockExpire)) },
      );
    }
  }

  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, blockDuration, getTracker, generateKey } = request;
    // ThrottlerGuard.onModuleInit names every throttler.
    const name = request.throttler.name!;
    const http = context.switchToHttp();
    const tracker = await getTracker(http.getRequest(), context);
    const key = generateKey(context, tracker, name);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    if (isUncounted(record)) return true;
    const { totalHits, timeToExpire, isBlocked, timeToBlockExpire } = record;
    const resetIn = Math.max(1, isBlocked ? timeToBlockExpire : timeToExpire);
    const remaining = isBlocked ? 0 : Math.max(0, limit - totalHits);
    const response = http.getResponse<HeaderWriter>();
    response.setHeader('X-RateLimit-Limit', String(limit));
    response.setHeader('X-RateLimit-Remaining', String(remaining));
    response.setHeader('X-RateLimit-Reset', String(Math.ceil(Date.now() / 1000) + resetIn));
    response.setHeader('RateLimit-Policy', `"${name}";q=${limit};w=${ttl / 1000}`);
    response.setHeader('RateLimit', `"${name}";r=${remaining};t=${resetIn}`);
    if (isBlocked) await this.throwThrottlingException(context, { limit, ttl, key, tracker, ...record });
    return true;
  }

  /** Every key of a workspace counts in its buckets. Only authenticated requests get here (canActivate). */
  protected override async getTracker(request: RateLimitedRequest): Promise<string> {
    return request.auth!.workspaceId;
  }

  /** One key per workspace and category, whichever route of the category is called. */
  protected override generateKey(_context: ExecutionContext, tracker: string, name: string): string {
    return `rate:${name}:${tracker}`;
  }

  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw new ApiError(
      429,
      'rate_limited',
      `Rate limit of ${detail.limit} ${rateCategoryOf(context)} requests per ${detail.ttl / 1000}s exceeded for this workspace`,
      undefined,
      { 'Retry-After': String(Math.max(1, detail.timeToBlockExpire)) },
    );
  }
}

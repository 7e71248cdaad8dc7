import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail, ThrottlerRequest } from '@nestjs/throttler';
import {
  THROTTLER_BLOCK_DURATION,
  THROTTLER_KEY_GENERATOR,
  THROTTLER_LIMIT,
  THROTTLER_SKIP,
  THROTTLER_TRACKER,
  THROTTLER_TTL,
} from '@nestjs/throttler/dist/throttler.constants';
import type { AuthContext } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';
import { isUncounted } from './fail-open-redis-storage';
import {
  BATCH_ITEMS,
  BATCH_ITEMS_THROTTLER,
  batchItemsOf,
  RATE_CATEGORIES,
  RATE_CATEGORY,
  RateCategory,
  rateCategoryOf,
} from './rate-category';
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

/** What a route is counted in, resolved from its metadata on its first request: nothing where it skips a bucket. */
interface RoutePolicy {
  call?: BucketOptions;
  items?: BucketOptions;
}

/** `@SkipThrottle()` without names skips `default`: this service has no throttler of that name, so it means every bucket. */
const EVERY_BUCKET = 'default';

/**
 * Fourth global guard: counts the request in its workspace's bucket for the route's category
 * (docs/api.md §4) and writes the rate-limit headers. The buckets are ThrottlerModule's named
 * throttlers `read`, `write` and `search`.
 *
 * ThrottlerGuard's own `canActivate` counts every named throttler on every route and resolves
 * each one's options through the reflector per request (18 µs of CPU a request in a tight loop,
 * against 2 µs here); here a route is counted by its `@Endpoint` category alone, and what
 * `@SkipThrottle()` and `@Throttle()` say of that bucket (on the handler, else its controller) is
 * read once per handler. A route with limits of its own is counted in a bucket of its own, per
 * workspace, as ThrottlerGuard keys its counts per route. Routes without a category (public,
 * operator) are not limited. A request the store could not count (Redis down, see
 * FailOpenRedisStorage) is served without the headers.
 */
@Injectable()
export class WorkspaceRateLimitGuard extends ThrottlerGuard {
  private buckets: Record<RateCategory, BucketOptions>;
  private batchItems: BucketOptions;
  private readonly policies = new WeakMap<object, RoutePolicy>();
  /** RateLimitsModule's store (createRateLimitStorage) counts a request as several hits: a batch's inputs. */
  declare protected readonly storageService: WeightedThrottlerStorage;

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
    this.buckets = Object.fromEntries(RATE_CATEGORIES.map((name) => [name, bucket(name)])) as Record<
      RateCategory,
      BucketOptions
    >;
    this.batchItems = bucket(BATCH_ITEMS_THROTTLER);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.switchToHttp().getRequest<RateLimitedRequest>().auth === undefined) return true;
    const { call, items } = this.policyOf(context);
    if (call) await this.handleRequest({ context, ...call });
    const inputs = items ? batchItemsOf(context) : 0;
    if (items && inputs > 0) await this.countBatchItems(context, items, inputs);
    return true;
  }

  private policyOf(context: ExecutionContext): RoutePolicy {
    const handler = context.getHandler();
    let policy = this.policies.get(handler);
    if (policy === undefined) {
      policy = this.resolvePolicy(handler, context.getClass());
      this.policies.set(handler, policy);
    }
    return policy;
  }

  private resolvePolicy(handler: Function, controller: Function): RoutePolicy {
    const category = Reflect.getMetadata(RATE_CATEGORY, handler) as RateCategory | undefined;
    if (category === undefined) return {};
    const batch = Reflect.getMetadata(BATCH_ITEMS, handler) === true;
    return {
      call: this.routeBucket(this.buckets[category], handler, controller),
      items: batch ? this.routeBucket(this.batchItems, handler, controller) : undefined,
    };
  }

  /** A bucket as the route's decorators leave it: undefined when skipped, its own when its limits are its own. */
  private routeBucket(bucket: BucketOptions, handler: Function, controller: Function): BucketOptions | undefined {
    const name = bucket.throttler.name!;
    const read = (metadata: string): unknown =>
      this.reflector.getAllAndOverride(metadata + name, [handler, controller]);
    const skipped =
      read(THROTTLER_SKIP) ?? this.reflector.getAllAndOverride(THROTTLER_SKIP + EVERY_BUCKET, [handler, controller]);
    if (skipped === true) return undefined;
    const route = `${controller.name}.${handler.name}`;
    if (read(THROTTLER_TRACKER) !== undefined || read(THROTTLER_KEY_GENERATOR) !== undefined) {
      throw new Error(
        `@Throttle on ${route}: getTracker and generateKey are not taken, every bucket counts per workspace`,
      );
    }
    const [limit, ttl, blockDuration] = [THROTTLER_LIMIT, THROTTLER_TTL, THROTTLER_BLOCK_DURATION].map(read);
    if (limit === undefined && ttl === undefined && blockDuration === undefined) return bucket;
    for (const value of [limit, ttl, blockDuration]) {
      if (value !== undefined && typeof value !== 'number')
        throw new Error(`@Throttle on ${route}: "${name}" needs a fixed limit, ttl and blockDuration`);
    }
    const own = {
      limit: (limit as number | undefined) ?? bucket.limit,
      ttl: (ttl as number | undefined) ?? bucket.ttl,
      blockDuration: (blockDuration as number | undefined) ?? (ttl as number | undefined) ?? bucket.blockDuration,
    };
    const generateKey = (context: ExecutionContext, tracker: string, throttler: string) =>
      `${this.generateKey(context, tracker, throttler)}:${route}`;
    return { ...bucket, ...own, generateKey };
  }

  /**
   * A batch's inputs, counted in the workspace's `batch-items` throttler after the call was counted
   * in its bucket, with headers of their own; over the limit, the call is 429 before it runs.
   */
  private async countBatchItems(context: ExecutionContext, bucket: BucketOptions, items: number): Promise<void> {
    const { limit, ttl, blockDuration, generateKey } = bucket;
    const tracker = await this.getTracker(context.switchToHttp().getRequest<RateLimitedRequest>());
    const key = generateKey(context, tracker, BATCH_ITEMS_THROTTLER);
    const record = await this.storageService.increment(key, ttl, limit, blockDuration, BATCH_ITEMS_THROTTLER, items);
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

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new ApiError(
      429,
      'rate_limited',
      `Rate limit of ${detail.limit} ${rateCategoryOf(context)} requests per ${detail.ttl / 1000}s exceeded for this workspace`,
      undefined,
      { 'Retry-After': String(Math.max(1, detail.timeToBlockExpire)) },
    );
  }
}

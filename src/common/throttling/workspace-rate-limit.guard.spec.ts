import { SetMetadata } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { Test } from '@nestjs/testing';
import { Reflector } from '@nestjs/core';
import { SkipThrottle, Throttle, ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import { BATCH_ITEMS, RATE_CATEGORY, type RateCategory } from './rate-category';
import { WorkspaceRateLimitGuard } from './workspace-rate-limit.guard';

class Routes {
  @SetMetadata(RATE_CATEGORY, 'search')
  search(): void {}

  unlimited(): void {}

  @SetMetadata(RATE_CATEGORY, 'search')
  @SkipThrottle({ search: true })
  searchSkipped(): void {}

  @SetMetadata(RATE_CATEGORY, 'search')
  @SkipThrottle()
  searchSkippedWhole(): void {}

  @SetMetadata(RATE_CATEGORY, 'search')
  @SkipThrottle({ write: true })
  searchSkippingAnotherBucket(): void {}

  @SetMetadata(RATE_CATEGORY, 'search')
  @Throttle({ search: { limit: 1, ttl: 5000 } })
  searchOwnLimit(): void {}

  @SetMetadata(RATE_CATEGORY, 'search')
  @Throttle({ write: { limit: 1, ttl: 5000 } })
  searchLimitOfAnotherBucket(): void {}

  @SetMetadata(RATE_CATEGORY, 'write')
  @SetMetadata(BATCH_ITEMS, true)
  @SkipThrottle({ 'batch-items': true })
  batchItemsSkipped(): void {}

  @SetMetadata(RATE_CATEGORY, 'search')
  @Throttle({ search: { limit: () => 1, ttl: 5000 } })
  searchResolvedLimit(): void {}
}

/** A controller that skips every bucket, with one route that takes its bucket back. */
@SkipThrottle()
class SkippedRoutes {
  @SetMetadata(RATE_CATEGORY, 'read')
  read(): void {}

  @SetMetadata(RATE_CATEGORY, 'read')
  @SkipThrottle({ default: false })
  readCounted(): void {}
}

describe('WorkspaceRateLimitGuard', () => {
  let guard: WorkspaceRateLimitGuard;
  const increment = jest.fn<ReturnType<ThrottlerStorage['increment']>, Parameters<ThrottlerStorage['increment']>>();

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ThrottlerModule.forRoot({
          throttlers: [
            ...(['read', 'write', 'search'] satisfies RateCategory[]).map((name, i) => ({
              name,
              limit: i + 2,
              ttl: 1000,
            })),
            { name: 'batch-items', limit: 100, ttl: 1000 },
          ],
          storage: { increment },
        }),
      ],
      providers: [WorkspaceRateLimitGuard],
    }).compile();
    await moduleRef.init();
    guard = moduleRef.get(WorkspaceRateLimitGuard);
  });
  beforeEach(() =>
    increment.mockReset().mockResolvedValue({ totalHits: 1, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 }),
  );

  function call(route: keyof Routes, request: object) {
    return callOn(Routes, Routes.prototype[route], request);
  }
  function callOn(controller: Function, handler: Function, request: object) {
    const headers: Record<string, string> = {};
    const response = { setHeader: (name: string, value: string) => (headers[name] = value) };
    return {
      headers,
      result: guard.canActivate(new ExecutionContextHost([request, response], controller as never, handler)),
    };
  }
  const caller = { auth: { workspaceId: 'wks_1' } };

  it('counts a request once, in the bucket of its route’s category for its workspace, and says so in the headers', async () => {
    const { headers, result } = call('search', { auth: { workspaceId: 'wks_1' } });
    await expect(result).resolves.toBe(true);
    expect(increment.mock.calls).toEqual([['rate:search:wks_1', 1000, 4, 1000, 'search']]);
    expect(headers).toEqual({
      'X-RateLimit-Limit': '4',
      'X-RateLimit-Remaining': '3',
      'X-RateLimit-Reset': expect.stringMatching(/^\d+$/),
      'RateLimit-Policy': '"search";q=4;w=1',
      RateLimit: '"search";r=3;t=1',
    });
  });

  it('neither counts nor marks a route without a category, nor a request without a caller', async () => {
    for (const { headers, result } of [call('unlimited', { auth: { workspaceId: 'wks_1' } }), call('search', {})]) {
      await expect(result).resolves.toBe(true);
      expect(headers).toEqual({});
    }
    expect(increment).not.toHaveBeenCalled();
  });

  describe('@SkipThrottle and @Throttle, as @nestjs/throttler defines them', () => {
    it('skips the bucket a route names, and every bucket without a name', async () => {
      for (const route of ['searchSkipped', 'searchSkippedWhole'] as const) {
        const { headers, result } = call(route, caller);
        await expect(result).resolves.toBe(true);
        expect(headers).toEqual({});
      }
      expect(increment).not.toHaveBeenCalled();
    });

    it('counts a route that skips another bucket as any other', async () => {
      await call('searchSkippingAnotherBucket', caller).result;
      expect(increment.mock.calls).toEqual([['rate:search:wks_1', 1000, 4, 1000, 'search']]);
    });

    it('reads the controller’s decorator, and the handler’s over it', async () => {
      await callOn(SkippedRoutes, SkippedRoutes.prototype.read, caller).result;
      expect(increment).not.toHaveBeenCalled();
      const { headers, result } = callOn(SkippedRoutes, SkippedRoutes.prototype.readCounted, caller);
      await result;
      expect(increment.mock.calls).toEqual([['rate:read:wks_1', 1000, 2, 1000, 'read']]);
      expect(headers['X-RateLimit-Limit']).toBe('2');
    });

    it('counts a route with limits of its own in a bucket of its own, with those limits in its headers', async () => {
      const { headers, result } = call('searchOwnLimit', caller);
      await result;
      expect(increment.mock.calls).toEqual([['rate:search:wks_1:Routes.searchOwnLimit', 5000, 1, 5000, 'search']]);
      expect(headers['RateLimit-Policy']).toBe('"search";q=1;w=5');
    });

    it('leaves a route’s bucket as configured when the limits name another bucket', async () => {
      await call('searchLimitOfAnotherBucket', caller).result;
      expect(increment.mock.calls).toEqual([['rate:search:wks_1', 1000, 4, 1000, 'search']]);
    });

    it('skips the batch-items count alone, the call still counted in its bucket', async () => {
      await call('batchItemsSkipped', { ...caller, body: { inputs: [{}, {}] } }).result;
      expect(increment.mock.calls).toEqual([['rate:write:wks_1', 1000, 3, 1000, 'write']]);
    });

    it('refuses limits resolved per request: they are read once', async () => {
      await expect(call('searchResolvedLimit', caller).result).rejects.toThrow(
        '@Throttle on Routes.searchResolvedLimit: "search" needs a fixed limit',
      );
    });

    it('reads a route’s decorators once, not on every request', async () => {
      await call('searchSkippingAnotherBucket', caller).result;
      await call('searchOwnLimit', caller).result;
      const reflector = (guard as unknown as { reflector: Reflector }).reflector;
      const reads = jest.spyOn(reflector, 'getAllAndOverride');
      try {
        await call('searchSkippingAnotherBucket', caller).result;
        await call('searchSkippingAnotherBucket', caller).result;
        await call('searchOwnLimit', caller).result;
        expect(reads).not.toHaveBeenCalled();
      } finally {
        reads.mockRestore();
      }
    });
  });
});

import { SetMetadata } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { Test } from '@nestjs/testing';
import { ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import { RATE_CATEGORY, type RateCategory } from './rate-category';
import { WorkspaceRateLimitGuard } from './workspace-rate-limit.guard';

class Routes {
  @SetMetadata(RATE_CATEGORY, 'search')
  search(): void {}

  unlimited(): void {}
}

describe('WorkspaceRateLimitGuard', () => {
  let guard: WorkspaceRateLimitGuard;
  const increment = jest.fn<ReturnType<ThrottlerStorage['increment']>, Parameters<ThrottlerStorage['increment']>>();

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ThrottlerModule.forRoot({
          throttlers: [
            ...(['read', 'write', 'search'] satisfies RateCategory[]).map((name, i) => ({ name, limit: i + 2, ttl: 1000 })),
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
  beforeEach(() => increment.mockReset().mockResolvedValue({ totalHits: 1, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 }));

  function call(route: keyof Routes, request: object) {
    const headers: Record<string, string> = {};
    const response = { setHeader: (name: string, value: string) => (headers[name] = value) };
    const handler = Routes.prototype[route];
    return { headers, result: guard.canActivate(new ExecutionContextHost([request, response], Routes, handler)) };
  }

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
});

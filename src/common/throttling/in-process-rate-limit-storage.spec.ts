import { InProcessRateLimitStorage } from './in-process-rate-limit-storage';

describe('InProcessRateLimitStorage (the Redis script’s fixed window and block, in this process)', () => {
  let storage: InProcessRateLimitStorage;
  let now: number;
  beforeEach(() => {
    now = Date.UTC(2026, 10, 25, 12, 0, 0);
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    storage = new InProcessRateLimitStorage();
  });
  afterEach(() => {
    storage.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  const hit = (key = 'rate:read:wks_1') => storage.increment(key, 1000, 3, 1000, 'read');

  it('counts hits in a window and blocks the one over the limit until the block ends', async () => {
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 });
    await hit();
    expect(await hit()).toMatchObject({ totalHits: 3, isBlocked: false });
    now += 400;
    expect(await hit()).toEqual({ totalHits: 4, timeToExpire: 1, isBlocked: true, timeToBlockExpire: 1 });
    now += 500; // 900 ms into the window, 500 ms into the block
    expect(await hit()).toMatchObject({ totalHits: 5, isBlocked: true, timeToBlockExpire: 1 });
    now += 100; // the window is over: counting starts again, and the block (400 ms left) still holds
    expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: true });
    now += 400;
    expect(await hit()).toMatchObject({ totalHits: 2, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('keeps keys and throttler names apart', async () => {
    for (let i = 0; i < 4; i++) await hit('rate:read:wks_1');
    expect(await hit('rate:read:wks_2')).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(await storage.increment('rate:read:wks_1', 1000, 3, 1000, 'write')).toMatchObject({
      totalHits: 1,
      isBlocked: false,
    });
  });

  it('keeps one counter per bucket, not one entry per hit, whatever the limit and the traffic', async () => {
    for (let i = 0; i < 20_000; i++) await storage.increment('rate:read:wks_1', 60_000, 1_000_000, 60_000, 'read');
    const last = await storage.increment('rate:read:wks_1', 60_000, 1_000_000, 60_000, 'read');
    expect(last).toMatchObject({ totalHits: 20_001, isBlocked: false });
    expect(storage.size).toBe(1);
  });

  it('drops the counters of keys that are neither counting nor blocked', async () => {
    for (let i = 0; i < 4; i++) await hit('blocked');
    await hit('idle');
    now += 1000;
    storage.dropExpired(now);
    expect(storage.size).toBe(0);
    for (let i = 0; i < 4; i++) await storage.increment('long-block', 1000, 3, 5000, 'read');
    now += 1000;
    storage.dropExpired(now);
    expect(storage.size).toBe(1);
  });
});

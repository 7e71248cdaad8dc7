import { createServer } from 'node:net';
import { Logger } from '@nestjs/common';
import { FailOpenRedisStorage, isUncounted } from './fail-open-redis-storage';

/** A port on which nothing listens: connections to it are refused. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('FailOpenRedisStorage without a reachable Redis', () => {
  let storage: FailOpenRedisStorage;
  let failures = 0;
  let warnings: jest.SpyInstance;

  beforeAll(async () => {
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    storage = new FailOpenRedisStorage(`redis://127.0.0.1:${await closedPort()}`, () => (failures += 1));
  });
  afterAll(async () => {
    await storage.onApplicationShutdown();
    warnings.mockRestore();
  });

  it('lets every request through at once, uncounted and unblocked, and reports each one', async () => {
    const started = Date.now();
    const records = await Promise.all(Array.from({ length: 50 }, () => storage.increment('rate:read:wks_1', 1000, 1, 1000, 'read')));
    expect(Date.now() - started).toBeLessThan(1000);
    for (const record of records) {
      expect(isUncounted(record)).toBe(true);
      expect(record).toEqual({ totalHits: 0, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 });
    }
    expect(failures).toBe(50);
  });

  it('warns at most once a second, however many requests fail', async () => {
    const before = warnings.mock.calls.length;
    for (let i = 0; i < 20; i += 1) await storage.increment('rate:read:wks_1', 1000, 1, 1000, 'read');
    expect(warnings.mock.calls.length - before).toBeLessThanOrEqual(1);
  });

  it('closes once, however often the application is closed', async () => {
    await expect(Promise.all([storage.onApplicationShutdown(), storage.onApplicationShutdown()])).resolves.toBeDefined();
  });
});

import { createServer } from 'node:net';
import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
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

/**
 * What `promise` has come to once the event loop has turned: its value, or 'still waiting'. Timers
 * are fake in this suite (setImmediate is not), so a promise that waits on any timer (a command
 * timeout, a reconnection delay) is still waiting, however fast or slow the machine.
 */
async function afterOneTurn<T>(promise: Promise<T>): Promise<T | 'still waiting'> {
  return Promise.race([
    promise,
    new Promise<'still waiting'>((resolve) => setImmediate(() => resolve('still waiting'))),
  ]);
}

describe('FailOpenRedisStorage without a reachable Redis', () => {
  let storage: FailOpenRedisStorage;
  let failures = 0;
  let warnings: jest.SpyInstance;
  let quit: jest.SpyInstance;
  let disconnect: jest.SpyInstance;

  beforeAll(async () => {
    const port = await closedPort();
    // The clock stands still unless a test moves it, and no timer fires: what these tests assert
    // does not depend on how fast the machine is. setImmediate and nextTick stay real, so the
    // client still learns of the refused connection; it then waits for a reconnection timer that
    // never fires, i.e. it stays disconnected.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    quit = jest.spyOn(Redis.prototype, 'quit');
    disconnect = jest.spyOn(Redis.prototype, 'disconnect');
    storage = new FailOpenRedisStorage(`redis://127.0.0.1:${port}`, () => (failures += 1));
  });
  afterAll(async () => {
    await storage.onApplicationShutdown();
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('lets every request through at once, uncounted and unblocked, and reports each one', async () => {
    const increments = Promise.all(
      Array.from({ length: 50 }, () => storage.increment('rate:read:wks_1', 1000, 1, 1000, 'read')),
    );
    // At once: no request waits for a connection or a command timeout (see afterOneTurn).
    const records = await afterOneTurn(increments);
    expect(records).not.toBe('still waiting');
    for (const record of records as Awaited<typeof increments>) {
      expect(isUncounted(record)).toBe(true);
      expect(record).toEqual({ totalHits: 0, timeToExpire: 1, isBlocked: false, timeToBlockExpire: 0 });
    }
    expect(failures).toBe(50);
  });

  it('warns at most once a second, however many requests and reconnections fail', async () => {
    // ioredis reports each failed reconnection as an 'error' of the client; the storage listens.
    const client = (storage as unknown as { redis: Redis }).redis;
    const refused = () => client.emit('error', new Error('connect ECONNREFUSED'));
    const failuresBefore = failures;
    jest.setSystemTime(Date.now() + 1000);
    const before = warnings.mock.calls.length;
    for (let i = 0; i < 20; i += 1) {
      refused();
      await storage.increment('rate:read:wks_1', 1000, 1, 1000, 'read');
    }
    expect(warnings.mock.calls.length - before).toBe(1);
    jest.setSystemTime(Date.now() + 999);
    refused();
    expect(warnings.mock.calls.length - before).toBe(1);
    jest.setSystemTime(Date.now() + 1);
    refused();
    expect(warnings.mock.calls.length - before).toBe(2);
    expect(failures - failuresBefore).toBe(20);
  });

  it('skips Redis for a second after a failure, then tries it again', async () => {
    const client = (storage as unknown as { redis: Redis }).redis;
    const commands = jest.spyOn(client, 'sendCommand');
    const failuresBefore = failures;
    jest.setSystemTime(Date.now() + 1000);
    await storage.increment('rate:read:wks_1', 1000, 1, 1000, 'read');
    const tried = commands.mock.calls.length;
    expect(tried).toBeGreaterThan(0);
    jest.setSystemTime(Date.now() + 999);
    for (let i = 0; i < 10; i += 1) await storage.increment('rate:read:wks_1', 1000, 1, 1000, 'read');
    // Served during the cool-down without a command sent, each reported.
    expect(commands.mock.calls.length).toBe(tried);
    expect(failures - failuresBefore).toBe(11);
    jest.setSystemTime(Date.now() + 1);
    await storage.increment('rate:read:wks_1', 1000, 1, 1000, 'read');
    expect(commands.mock.calls.length).toBe(2 * tried);
    commands.mockRestore();
  });

  it('closes once, however often the application is closed', async () => {
    const closes = [storage.onApplicationShutdown(), storage.onApplicationShutdown()];
    await Promise.all(closes);
    await storage.onApplicationShutdown();
    // One QUIT; Redis being unreachable, it is refused and the client dropped, once.
    expect(quit).toHaveBeenCalledTimes(1);
    expect(disconnect).toHaveBeenCalledTimes(1);
  });
});

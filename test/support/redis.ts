import Redis from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A client of the test Redis, or a loud failure: integration tests must not pass, nor be skipped,
 * without the Redis they are about.
 */
export async function connectRedis(url = TEST_REDIS_URL): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    const pong = await redis.ping();
    if (pong !== 'PONG') throw new Error(`PING answered ${pong}`);
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Redis is not reachable at ${url} (${String(error)}). Start it: ` +
        'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
    );
  }
  return redis;
}

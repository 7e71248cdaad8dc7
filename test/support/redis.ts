import { ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { freePort } from './byte-http';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A client of the test Redis, or a loud failure: integration tests must not pass, nor be skipped,
 * without the Redis they are about.
 */
export async function connectRedis(url = TEST_REDIS_URL): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    const pong = await redis.ping();
    if (pong !== 'PONG') throw new Error(`PING answered ${String(pong)}`);
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Redis is not reachable at ${url} (${String(error)}). Start it: ` +
        'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
      { cause: error },
    );
  }
  return redis;
}

/**
 * A Redis server of the test's own (no persistence, on a free port), that the test may stop,
 * freeze and start again: `redis-server` as a child process.
 */
export class OwnRedis {
  private server: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.restart();
    return redis;
  }

  /** Starts the server (again, on the same port) and waits until it answers PING. */
  async restart(): Promise<void> {
    if (this.server) return;
    const server = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    this.server = server;
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const deadline = Date.now() + 10_000;
    while (!output.includes('Ready to accept connections')) {
      if (Date.now() > deadline || server.exitCode !== null) {
        this.kill();
        throw new Error(`redis-server did not start on port ${this.port}: ${output}`);
      }
      await sleep(20);
    }
    await (await connectRedis(this.url)).quit();
  }

  /** Stops the server at once (SIGKILL): connections drop, new ones are refused. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGKILL');
      await exited;
    }
  }

  /** Freezes the server (SIGSTOP): connections stay open and commands get no answer; `thaw` resumes it. */
  freeze(): void {
    this.server?.kill('SIGSTOP');
  }

  thaw(): void {
    this.server?.kill('SIGCONT');
  }

  private kill(): void {
    this.server?.kill('SIGKILL');
    this.server = undefined;
  }
}

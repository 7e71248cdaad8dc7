import { OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Counter {
  hits: number;
  /** When the window's count starts again from zero (epoch ms). */
  windowEndsAt: number;
  /** Until when requests are refused once the count went over the limit (epoch ms); 0 if not blocked. */
  blockedUntil: number;
}

/** How often counters whose window and block are over are dropped, so that the map holds live keys only. */
const SWEEP_MS = 60_000;

const seconds = (milliseconds: number) => Math.ceil(milliseconds / 1000);

/**
 * Rate-limit counters in this process, when there is no Redis: the fixed window and block of the
 * Redis script (@nest-lab/throttler-storage-redis) that several instances share, so one instance
 * counts as many do, in constant time per request. @nestjs/throttler's in-memory storage keeps a
 * timestamp per hit and filters them all on every request: a request's cost grew with the limit
 * and the traffic.
 */
export class InProcessRateLimitStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly counters = new Map<string, Counter>();
  private readonly sweep = setInterval(() => this.dropExpired(Date.now()), SWEEP_MS).unref();

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
    hits = 1,
  ): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    const id = `${key}:${throttlerName}`;
    let counter = this.counters.get(id);
    if (counter === undefined) {
      counter = { hits: 0, windowEndsAt: 0, blockedUntil: 0 };
      this.counters.set(id, counter);
    }
    if (counter.windowEndsAt <= now) {
      counter.hits = 0;
      counter.windowEndsAt = now + ttl;
    }
    counter.hits += hits;
    if (counter.blockedUntil <= now && counter.hits > limit) counter.blockedUntil = now + blockDuration;
    const isBlocked = counter.blockedUntil > now;
    return {
      totalHits: counter.hits,
      timeToExpire: seconds(counter.windowEndsAt - now),
      isBlocked,
      timeToBlockExpire: isBlocked ? seconds(counter.blockedUntil - now) : 0,
    };
  }

  /** Drops the counters of keys that have not been counted for a window and are not blocked. */
  dropExpired(now: number): void {
    for (const [id, counter] of this.counters) {
      if (counter.windowEndsAt <= now && counter.blockedUntil <= now) this.counters.delete(id);
    }
  }

  get size(): number {
    return this.counters.size;
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweep);
    this.counters.clear();
  }
}

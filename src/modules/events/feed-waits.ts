import { Injectable } from '@nestjs/common';
import { setMaxListeners } from 'node:events';
import { ApiError } from '../../common/errors/api-error';
import { AppConfig } from '../../config/app-config';
import { ChangeEvents } from '../../records/change-events';

/** The longest `wait` of a feed read, in seconds. */
export const MAX_FEED_WAIT_SECONDS = 30;

/**
 * How often a waiting read looks again with no signal: a signal from another instance can be lost
 * (it died between its commit and its notification). Not as often as a head is trusted
 * (SIGNALS_TRUSTED_MS): each look past that asks PostgreSQL for the workspace's head, and a
 * thousand waiting workspaces would cost a thousand statements a second doing nothing.
 */
const LOOK_AGAIN_MS = 5000;

/**
 * Feed reads that wait for events (`wait`, docs/api.md §12): a read that found none is read again
 * on each append of its workspace signalled in this process (ChangeEvents.onAppended: one LISTEN
 * per process, so a waiting read holds no connection), and every LOOK_AGAIN_MS meanwhile,
 * until it finds some, its time is up, its caller has gone, or the instance drains. At most EVENTS_MAX_WAITERS wait at once in a process.
 */
@Injectable()
export class FeedWaits {
  private waiting = 0;
  private readonly draining = new AbortController();

  constructor(
    private readonly events: ChangeEvents,
    private readonly config: AppConfig,
  ) {
    // Every read with a wait listens to it, up to EVENTS_MAX_WAITERS and more at once: past node's warning at 10.
    setMaxListeners(0, this.draining.signal);
  }

  /** On SIGTERM, before the HTTP drain waits for the requests in flight: every waiting read answers what it has. */
  release(): void {
    this.draining.abort();
  }

  /**
   * `read`'s answer once `found` holds of it, or its last one when `seconds` have passed, `gone`
   * aborted (the caller closed the connection) or the instance drains. A read that finds something
   * at once takes no place among the waiters; one that would wait when they are all taken is 503
   * `too_many_waiters`.
   */
  async until<T>(
    workspaceId: string,
    seconds: number,
    read: () => Promise<T>,
    found: (page: T) => boolean,
    gone: AbortSignal,
  ): Promise<T> {
    const deadline = Date.now() + seconds * 1000;
    let signalled: boolean;
    let wake = () => undefined as void;
    const unsubscribe = this.events.onAppended((appendedTo) => {
      if (appendedTo !== undefined && appendedTo !== workspaceId) return;
      signalled = true;
      wake();
    });
    let waiter = false;
    const stop = () => wake();
    gone.addEventListener('abort', stop);
    this.draining.signal.addEventListener('abort', stop);
    try {
      for (;;) {
        signalled = false;
        const page = await read();
        if (found(page) || Date.now() >= deadline || gone.aborted || this.draining.signal.aborted) return page;
        if (!waiter) {
          if (this.waiting >= this.config.eventsMaxWaiters) {
            throw new ApiError(
              503,
              'too_many_waiters',
              `This instance holds ${this.config.eventsMaxWaiters} waiting feed reads already: retry, or read without wait`,
              'wait',
              { 'Retry-After': '1' },
            );
          }
          waiter = true;
          this.waiting += 1;
        }
        // An append signalled while the read ran is read at once.
        if (signalled) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(deadline - Date.now(), LOOK_AGAIN_MS));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = () => undefined;
      }
    } finally {
      if (waiter) this.waiting -= 1;
      unsubscribe();
      gone.removeEventListener('abort', stop);
      this.draining.signal.removeEventListener('abort', stop);
    }
  }
}

import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/** Resolves once `condition` holds, checking every 25 ms; fails saying `what` it waited for after `timeoutMs`. */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Starts `count` calls of `run` at once and waits for all of them. */
export function concurrently<T>(count: number, run: (index: number) => PromiseLike<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_unused, index) => run(index)));
}

/**
 * A door a test-only handler waits at, so that a test can act while a request is certainly in
 * flight (no guessing with timers): `arrived` resolves when a handler reaches the door, `open()`
 * lets every waiting handler go on.
 */
export class Gate {
  private opened = false;
  private waiting: (() => void)[] = [];
  private onArrival?: () => void;
  readonly arrived = new Promise<void>((resolve) => (this.onArrival = resolve));

  async pass(): Promise<void> {
    this.onArrival?.();
    if (this.opened) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  open(): void {
    this.opened = true;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

import { setTimeout as sleep } from 'node:timers/promises';

/** Waits until `condition` holds, checking every 25 ms; fails naming `what` after `timeoutMs`. */
export async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// V8 hands `gc` to a context made after the flag is set, without the flag on the command line.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Waits until an interval passes in which the process used next to no CPU: what a collection or
 * the previous measure left to V8's background threads (sweeping, concurrent marking), whose time
 * `process.cpuUsage` counts, is done before a measure starts.
 */
async function quiet(): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const started = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, QUIET_INTERVAL_MS));
    const used = process.cpuUsage(started);
    if (used.user + used.system < QUIET_INTERVAL_MS * 100) return;
  }
}

/** An interval in which the process used under a tenth of it on CPU is a quiet one. */
const QUIET_INTERVAL_MS = 10;

/**
 * How many times more CPU `work(large)` takes than `work(small)`, both measured in this run: the
 * ratio of the least of `repetitions` interleaved measures of each. CPU time of this process (the
 * application under test runs in it, client and server), not the wall clock: time spent waiting
 * for a core that another process holds is not the work's.
 *
 * A test of a cost asserts how it grows with its input, not what it is: a bound in milliseconds
 * fails on a busy machine (a shared 2-core CI runner, a garbage collection) and lets a quadratic
 * algorithm pass on a fast one, whereas the ratio between two sizes measured side by side is the
 * same on both. Interleaving puts both sizes under the same load; the heap is collected before the
 * measures, each starts in a quiet process, and the shortest is the one that a preemption or a
 * collection of the work's own garbage did not hit (they only ever add time: the median of 7
 * varied by a factor of 3). Both are run once first, so that neither pays for compilation.
 *
 * With sizes 4 apart, a linear cost gives about 4 and a quadratic one 16; with sizes 16 apart, a
 * cost that does not depend on the size gives about 1 and a linear one 16. `work` must do the work
 * and nothing else (build its input beforehand): what it costs is what is timed.
 */
export async function costGrowth<T>(work: (input: T) => unknown, small: T, large: T, repetitions = 9): Promise<number> {
  const timed = async (input: T): Promise<number> => {
    await quiet();
    const started = process.cpuUsage();
    await work(input);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
  await timed(small);
  await timed(large);
  // In a jest worker whose heap earlier test files have grown near its limit, the large input's
  // allocations set off a full collection each time, whose cost is that heap's, not the input's (a
  // ratio of 17 where 4 was due, on CI). One collection first leaves the measures room to allocate.
  collectGarbage();
  const smallTimes: number[] = [];
  const largeTimes: number[] = [];
  for (let i = 0; i < repetitions; i += 1) {
    smallTimes.push(await timed(small));
    largeTimes.push(await timed(large));
  }
  // A cost below the timer's resolution would divide by zero.
  return Math.min(...largeTimes) / Math.max(Math.min(...smallTimes), 0.001);
}

/** `run` repeated `times` times: a unit of work long enough to time when one run takes microseconds. */
export function repeated<T>(times: number, run: (input: T) => unknown): (input: T) => void {
  return (input) => {
    for (let i = 0; i < times; i += 1) run(input);
  };
}

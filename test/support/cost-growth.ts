/**
 * How many times more CPU `work(large)` takes than `work(small)`, both measured in this run: the
 * ratio of the least of `repetitions` interleaved measures of each. CPU time of this process (the
 * application under test runs in it, client and server), not the wall clock: time spent waiting
 * for a core that another process holds is not the work's.
 *
 * A test of a cost asserts how it grows with its input, not what it is: a bound in milliseconds
 * fails on a busy machine (a shared 2-core CI runner, a garbage collection) and lets a quadratic
 * algorithm pass on a fast one, whereas the ratio between two sizes measured side by side is the
 * same on both. Interleaving puts both sizes under the same load; the shortest timing is the one
 * that a collection or a preemption did not hit (they only ever add time, and a megabyte's work
 * triggers one now and then: the median of 7 still varied by a factor of 3). Both are run once
 * first, so that neither pays for compilation.
 *
 * With sizes 4 apart, a linear cost gives about 4 and a quadratic one 16; with sizes 16 apart, a
 * cost that does not depend on the size gives about 1 and a linear one 16. `work` must do the work
 * and nothing else (build its input beforehand): what it costs is what is timed.
 */
export async function costGrowth<T>(work: (input: T) => unknown, small: T, large: T, repetitions = 9): Promise<number> {
  const timed = async (input: T): Promise<number> => {
    const started = process.cpuUsage();
    await work(input);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
  await timed(small);
  await timed(large);
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

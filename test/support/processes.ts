import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The pids whose parent is `pid`, read from /proc. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The pid of the PostgreSQL server running on the cluster in `clusterDir`, if its lock file names one. */
export function postmasterPid(clusterDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Kills a PostgreSQL server and every backend at once, as a crash of the machine would. */
export function killPostgres(clusterDir: string): void {
  const pid = postmasterPid(clusterDir);
  if (pid === undefined) return;
  const backends = childrenOf(pid);
  killQuietly(pid);
  for (const backend of backends) killQuietly(backend);
}

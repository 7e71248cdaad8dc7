import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { generateApiKeySecret, hashSecret } from '../src/common/auth/api-key-secret';
import { newId } from '../src/common/ids';
import { isAlive, startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { runMigrations } from '../src/database/migrate';
import type { BaselineKind } from './baseline-server';

const teardown: (() => unknown)[] = [];

/** Registers a step for the end of the bench; steps run newest first, also after a failure or Ctrl-C. */
function onTeardown(step: () => unknown): void {
  teardown.push(step);
}

/**
 * Runs a bench in one fresh folder under the system's temporary directory (its database, the
 * service's data): the folder is removed and everything started is stopped when the bench ends,
 * fails or is interrupted (SIGINT, SIGTERM, SIGHUP; a second signal exits at once).
 */
export function runBench(main: (folder: string) => Promise<void>): void {
  const folder = mkdtempSync(path.join(tmpdir(), 'records-bench-'));
  onTeardown(() => rmSync(folder, { recursive: true, force: true }));
  let finishing = false;
  const finish = async (code: number) => {
    if (finishing) return;
    finishing = true;
    for (let step = teardown.pop(); step; step = teardown.pop()) {
      try {
        await step();
      } catch (error) {
        console.error('cleanup step failed:', error);
      }
    }
    process.exit(code);
  };
  const fail = (error: unknown) => {
    if (!finishing) console.error(error);
    void finish(1);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the bench and removing ${folder}`);
      void finish(130);
    });
  }
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  main(folder).then(() => finish(0), fail);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForExit(pid: number): Promise<void> {
  while (isAlive(pid)) await sleep(100);
}

async function execute(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A migrated embedded PostgreSQL in `folder`, with pg_stat_statements preloaded (one restart) so
 * that a run can count the statements it caused and see the time spent planning them.
 */
export async function startBenchDatabase(folder: string): Promise<{ url: string }> {
  // As root, PostgreSQL runs as `postgres`, which must be able to pass through the bench's folder.
  chmodSync(folder, 0o711);
  const options = { dataDir: path.join(folder, 'database'), port: await freePort(), database: 'records_bench' };
  const first = await startEmbeddedPostgres(options);
  await execute(first.url, `ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
  await first.stop();
  const embedded = await startEmbeddedPostgres(options);
  const postmaster = Number(
    readFileSync(path.join(options.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  // A Ctrl-C in a terminal reaches PostgreSQL too, and then stop() would wait for an exit already past.
  onTeardown(() => Promise.race([embedded.stop(), waitForExit(postmaster)]));
  await execute(embedded.url, 'CREATE EXTENSION pg_stat_statements');
  await execute(embedded.url, 'ALTER SYSTEM SET pg_stat_statements.track_planning = on');
  await execute(embedded.url, 'SELECT pg_reload_conf()');
  await runMigrations(embedded.url);
  return { url: embedded.url };
}

export interface BenchWorkspace {
  id: string;
  memberId: string;
  key: string;
}

/** A workspace, an admin member and a key with every scope, inserted directly. */
export async function seedWorkspace(db: Client, name: string): Promise<BenchWorkspace> {
  const workspace = { id: newId('workspace'), memberId: newId('member'), key: generateApiKeySecret() };
  await db.query(`INSERT INTO workspaces (id, name) VALUES ($1, $2)`, [workspace.id, name]);
  await db.query(`INSERT INTO members (id, workspace_id, email, role) VALUES ($1, $2, 'bench@example.com', 'admin')`, [
    workspace.memberId,
    workspace.id,
  ]);
  await db.query(
    `INSERT INTO api_keys (id, workspace_id, member_id, key_hash, scopes) VALUES ($1, $2, $3, $4, '{*}')`,
    [newId('apiKey'), workspace.id, workspace.memberId, hashSecret(workspace.key)],
  );
  return workspace;
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** BENCH_CPU_PROF_DIR: each server writes a CPU profile there when it stops (node --cpu-prof), named after its pid. */
const PROFILE_ARGS = process.env.BENCH_CPU_PROF_DIR
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
  : [];

/** A node server of the build in its own process, stopped at teardown, once `/health/ready` answers 200. */
/** The build this bench is part of: dist/. */
const OWN_BUILD = path.join(__dirname, '..');

async function startServer(script: string, port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...PROFILE_ARGS, script], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  onTeardown(() => stop(child));
  for (let i = 0; i < 200 && child.exitCode === null; i += 1) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) return child;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${script} did not become ready`);
}

export interface BenchServer {
  port: number;
  pid: number;
}

/** The built service in production mode, its data in `folder`, with `env` added. */
export async function startService(
  folder: string,
  databaseUrl: string,
  env: Record<string, string> = {},
  build = OWN_BUILD,
): Promise<BenchServer> {
  const port = await freePort();
  const dataDir = path.join(folder, `service-${port}`);
  mkdirSync(dataDir, { recursive: true });
  const child = await startServer(path.join(build, 'src', 'main.js'), port, {
    DATABASE_URL: databaseUrl,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    ...env,
  });
  return { port, pid: child.pid! };
}

/** bench/baseline-server.ts, built, on the HTTP layer `kind`. */
export async function startBaseline(databaseUrl: string, kind: BaselineKind): Promise<BenchServer> {
  const port = await freePort();
  const child = await startServer(path.join(OWN_BUILD, 'bench', 'baseline-server.js'), port, {
    DATABASE_URL: databaseUrl,
    BASELINE: kind,
  });
  return { port, pid: child.pid! };
}

const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** CPU seconds (user + system) that a live process has used: utime + stime of /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

/** Resident set size of a live process, in bytes. */
export function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

export interface StatementStats {
  calls: number;
  /** Executing. */
  milliseconds: number;
  plans: number;
  planMilliseconds: number;
  query: string;
}

export interface Cost {
  nodeSeconds: number;
  postgresSeconds: number;
  /** Top-level statements of the run, most time first. */
  statements: StatementStats[];
}

/** CPU seconds of each PostgreSQL client backend but the caller's own. */
async function backendCpu(db: Client): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      cpu.set(pid, cpuSeconds(pid));
    } catch {
      // ended since
    }
  }
  return cpu;
}

/** CPU seconds of each PostgreSQL client backend but the caller's own, with the service process that opened it (see backendCpuBetween). */
export interface BackendCpu {
  /** The pid its `application_name` names (see applicationName), 0 for others. */
  process: number;
  seconds: number;
}

export async function backendCpuByBackend(db: Client): Promise<Map<number, BackendCpu>> {
  const { rows } = await db.query<{ pid: number; owner: string | null }>(
    `SELECT pid, substring(application_name FROM '^records\\[(\\d+)\\]') AS owner FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  const cpu = new Map<number, BackendCpu>();
  for (const { pid, owner } of rows) {
    try {
      cpu.set(pid, { process: Number(owner ?? 0), seconds: cpuSeconds(pid) });
    } catch {
      // ended since
    }
  }
  return cpu;
}

/**
 * The CPU seconds PostgreSQL's client backends spent between two looks, added up per service
 * process: a backend that started meanwhile counts whole, one that ended meanwhile not at all
 * (its last seconds are not known).
 */
export function backendCpuBetween(
  before: Map<number, BackendCpu>,
  after: Map<number, BackendCpu>,
): Map<number, number> {
  const spent = new Map<number, number>();
  for (const [pid, { process, seconds }] of after)
    spent.set(process, (spent.get(process) ?? 0) + seconds - (before.get(pid)?.seconds ?? 0));
  return spent;
}

async function busyBackends(db: Client): Promise<number> {
  const { rows } = await db.query<{ busy: number }>(
    `SELECT count(*)::int AS busy FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND state <> 'idle' AND pid <> pg_backend_pid()`,
  );
  return rows[0].busy;
}

/**
 * Runs `work` and measures what it cost: CPU of the server process and of PostgreSQL's client
 * backends (utime + stime from /proc/<pid>/stat before and after; a backend that starts during the
 * run counts whole), and the top-level statements pg_stat_statements saw (reset before), once
 * PostgreSQL has been idle for 0.2 s after `work`. `db`, the bench's own connection, must stay
 * idle meanwhile; its statements (on pg_stat_*) are left out.
 */
export async function measured<T>(
  db: Client,
  serverPid: number,
  work: () => Promise<T>,
): Promise<{ result: T; cost: Cost }> {
  await db.query('SELECT pg_stat_statements_reset()');
  const postgresBefore = await backendCpu(db);
  const nodeBefore = cpuSeconds(serverPid);
  const result = await work();
  // Requests in flight when the load stopped still do their work: count it here, not in the next run.
  for (let quiet = 0, waited = 0; quiet < 2 && waited < 600; waited += 1) {
    await sleep(100);
    quiet = (await busyBackends(db)) === 0 ? quiet + 1 : 0;
  }
  const nodeSeconds = cpuSeconds(serverPid) - nodeBefore;
  let postgresSeconds = 0;
  for (const [pid, seconds] of await backendCpu(db)) postgresSeconds += seconds - (postgresBefore.get(pid) ?? 0);
  const { rows: statements } = await db.query<StatementStats>(
    `SELECT calls::int, total_exec_time AS milliseconds, plans::int, total_plan_time AS "planMilliseconds", query
       FROM pg_stat_statements
      WHERE query !~ 'pg_stat_' ORDER BY total_exec_time DESC`,
  );
  return { result, cost: { nodeSeconds, postgresSeconds, statements } };
}

/** What the service processes of a bench are given: no rate limit, and webhook deliveries to loopback only (the bench's receivers). */
export const BENCH_SERVICE_ENV = {
  RATE_LIMIT_READ: '1000000',
  RATE_LIMIT_WRITE: '1000000',
  RATE_LIMIT_SEARCH: '1000000',
  RATE_LIMIT_BATCH_ITEMS: '1000000',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
};

/** A goal of the performance budgets: `measured` must be at least, or at most, `target`. */
export interface Budget {
  goal: string;
  measured: number;
  target: number;
  atLeast: boolean;
}

/** Prints the budgets, each with PASS or MISS. */
export function printBudgets(budgets: Budget[]): void {
  printTable(
    ['goal', 'measured', 'target', ''],
    budgets.map(({ goal, measured, target, atLeast }) => [
      goal,
      Number.isFinite(measured) ? measured.toFixed(2) : '-',
      `${atLeast ? '≥' : '≤'} ${target}`,
      (atLeast ? measured >= target : measured <= target) ? 'PASS' : 'MISS',
    ]),
  );
}

/** Prints rows under headers in aligned columns: the first to the left, the others to the right. */
export function printTable(headers: string[], rows: unknown[][]): void {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  for (const row of cells) {
    console.log(
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
        .join('  '),
    );
  }
}

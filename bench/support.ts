import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { generateApiKeySecret, hashSecret } from '../src/common/auth/api-key-secret';
import { newId } from '../src/common/ids';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { runMigrations } from '../src/database/migrate';

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** BENCH_DATABASE_URL when set (its name must say "bench"), else an embedded PostgreSQL; migrated. */
export async function benchDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  let url = process.env.BENCH_DATABASE_URL;
  let stop: () => Promise<void> = async () => undefined;
  if (url) {
    if (!/bench/i.test(new URL(url).pathname)) throw new Error('BENCH_DATABASE_URL must name a database that says "bench"');
  } else {
    const embedded = await startEmbeddedPostgres({
      dataDir: mkdtempSync(path.join(tmpdir(), 'records-bench-')),
      port: await freePort(),
      database: 'records_bench',
    });
    url = embedded.url;
    stop = embedded.stop;
  }
  await runMigrations(url);
  return { url, stop };
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
  await db.query(`INSERT INTO api_keys (id, workspace_id, member_id, key_hash, scopes) VALUES ($1, $2, $3, $4, '{*}')`, [
    newId('apiKey'),
    workspace.id,
    workspace.memberId,
    hashSecret(workspace.key),
  ]);
  return workspace;
}

/** The built service in its own process, in production mode, once it answers /health/ready. */
export async function startService(databaseUrl: string, port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'src', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'records-bench-app-')),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 100; i += 1) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) return child;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('the service did not become ready');
}

export async function stopService(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

/**
 * `npm run bench`: seeds workspaces with 1,000 and 100,000 notes (linked to accounts), starts the
 * built service against them with rate limits raised, drives it with autocannon at 32 connections
 * and prints requests/s and p50/p99 latency per scenario, then the query plans of the list queries.
 * Uses BENCH_DATABASE_URL when set (its name must say "bench"), else an embedded PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { generateApiKeySecret, hashSecret } from '../src/common/auth/api-key-secret';
import { newId } from '../src/common/ids';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres';
import { runMigrations } from '../src/database/migrate';

const CONNECTIONS = 32;
const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);

interface Workspace {
  id: string;
  key: string;
  noteId: string;
  accountId: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One workspace with `notes` notes spread over 1,000 accounts, seeded in bulk SQL. */
async function seed(db: Client, notes: number, batch: 1 | 2): Promise<Workspace> {
  const workspaceId = newId('workspace');
  const memberId = newId('member');
  const key = generateApiKeySecret();
  await db.query(`INSERT INTO workspaces (id, name) VALUES ($1, $2)`, [workspaceId, `bench ${notes}`]);
  await db.query(`INSERT INTO members (id, workspace_id, email, role) VALUES ($1, $2, 'bench@example.com', 'admin')`, [
    memberId,
    workspaceId,
  ]);
  await db.query(`INSERT INTO api_keys (id, workspace_id, member_id, key_hash, scopes) VALUES ($1, $2, $3, $4, '{*}')`, [
    newId('apiKey'),
    workspaceId,
    memberId,
    hashSecret(key),
  ]);
  // Ids keep the prefix_ULID shape: 26 Crockford characters made from the batch and row number.
  const ulid = (prefix: string, seq: string) => `'${prefix}_01${batch}' || lpad(upper(to_hex(${seq})), 23, '0')`;
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${ulid('acc', 'g')}, $1, 'account', jsonb_build_object('$name', 'Account ' || g), now() - interval '1 day'
       FROM generate_series(1, 1000) g`,
    [workspaceId],
  );
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${ulid('note', 'g')}, $1, 'note',
            jsonb_build_object('$title', 'Note ' || g, '$content', repeat('text ', 20)),
            now() - (g || ' milliseconds')::interval
       FROM generate_series(1, $2::int) g`,
    [workspaceId, notes],
  );
  await db.query(
    `INSERT INTO record_links (workspace_id, source_id, link, target_id)
     SELECT $1, ${ulid('note', 'g')}, 'note:$account', ${ulid('acc', '(g % 1000) + 1')}
       FROM generate_series(1, $2::int) g
     UNION ALL
     SELECT $1, ${ulid('note', 'g')}, 'note:$createdBy', $3 FROM generate_series(1, $2::int) g`,
    [workspaceId, notes, memberId],
  );
  await db.query(
    `INSERT INTO record_counts (workspace_id, object_type, count) VALUES ($1, 'account', 1000), ($1, 'note', $2)`,
    [workspaceId, notes],
  );
  const ids = await db.query(
    `SELECT (SELECT id FROM records WHERE workspace_id = $1 AND object_type = 'note' ORDER BY id LIMIT 1 OFFSET 500) AS note,
            (SELECT id FROM records WHERE workspace_id = $1 AND object_type = 'account' ORDER BY id LIMIT 1 OFFSET 7) AS account`,
    [workspaceId],
  );
  return { id: workspaceId, key, noteId: ids.rows[0].note, accountId: ids.rows[0].account };
}

async function startService(databaseUrl: string, port: number): Promise<() => void> {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'src', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      NODE_ENV: 'production',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_READ: '1000000',
      RATE_LIMIT_WRITE: '1000000',
      RATE_LIMIT_SEARCH: '1000000',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'records-bench-app-')),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 100; i += 1) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) return () => child.kill('SIGTERM');
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('the service did not become ready');
}

async function scenario(
  name: string,
  port: number,
  workspace: Workspace,
  request: { method?: 'GET' | 'POST'; path: string; body?: unknown },
): Promise<{ name: string; rps: number; p50: number; p99: number; errors: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${request.path}`,
    method: request.method ?? 'GET',
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    headers: {
      authorization: `Bearer ${workspace.key}`,
      'service-version': '2026-03-01',
      'content-type': 'application/json',
    },
    body: request.body ? JSON.stringify(request.body) : undefined,
  });
  const row = {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
  console.log(
    `${name.padEnd(44)} ${String(row.rps).padStart(6)} req/s   p50 ${String(row.p50).padStart(4)} ms   p99 ${String(row.p99).padStart(4)} ms   non-2xx ${row.errors}`,
  );
  return row;
}

async function explain(db: Client, workspace: Workspace): Promise<void> {
  const queries: [string, string, unknown[]][] = [
    ['first page', `SELECT r.id FROM records r WHERE r.workspace_id = $1 AND r.object_type = 'note' ORDER BY r.created_at DESC, r.id DESC LIMIT 25`, [workspace.id]],
    ['count', `SELECT count(*) FROM records r WHERE r.workspace_id = $1 AND r.object_type = 'note'`, [workspace.id]],
    [
      'filtered page ($account equal)',
      `SELECT r.id FROM records r WHERE r.workspace_id = $1 AND r.object_type = 'note'
         AND EXISTS (SELECT 1 FROM record_links l WHERE l.source_id = r.id AND l.link = 'note:$account' AND l.target_id = $2)
       ORDER BY r.created_at DESC, r.id DESC LIMIT 25`,
      [workspace.id, workspace.accountId],
    ],
  ];
  for (const [name, sql, params] of queries) {
    const plan = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
    console.log(`\n-- EXPLAIN ANALYZE: ${name}\n${plan.rows.map((row) => row['QUERY PLAN']).join('\n')}`);
  }
}

async function main(): Promise<void> {
  let url = process.env.BENCH_DATABASE_URL;
  let stopDatabase: () => Promise<void> = async () => undefined;
  if (url) {
    if (!/bench/i.test(new URL(url).pathname)) throw new Error('BENCH_DATABASE_URL must name a database that says "bench"');
  } else {
    const embedded = await startEmbeddedPostgres({
      dataDir: mkdtempSync(path.join(tmpdir(), 'records-bench-')),
      port: await freePort(),
      database: 'records_bench',
    });
    url = embedded.url;
    stopDatabase = embedded.stop;
  }
  await runMigrations(url);
  const db = new Client({ connectionString: url });
  await db.connect();
  console.log('seeding 1,000 and 100,000 notes…');
  const small = await seed(db, 1_000, 1);
  const large = await seed(db, 100_000, 2);
  await db.query('VACUUM ANALYZE');
  const port = await freePort();
  const stopService = await startService(url, port);
  try {
    console.log(`\n${CONNECTIONS} connections, ${DURATION_SECONDS}s per scenario`);
    await scenario('GET /v1/notes (first page, 1,000 notes)', port, small, { path: '/v1/notes' });
    await scenario('GET /v1/notes (first page, 100,000 notes)', port, large, { path: '/v1/notes' });
    await scenario('GET /v1/notes?$account=… (100,000 notes)', port, large, {
      path: `/v1/notes?$account=${large.accountId}`,
    });
    await scenario('GET /v1/notes?$title[startsWith]=Note 9999', port, large, {
      path: `/v1/notes?${encodeURIComponent('$title[startsWith]')}=${encodeURIComponent('Note 9999')}`,
    });
    await scenario('GET /v1/notes/{id}', port, large, { path: `/v1/notes/${large.noteId}` });
    await scenario('POST /v1/notes', port, large, {
      method: 'POST',
      path: '/v1/notes',
      body: { fields: { $title: 'Bench', $content: 'x' }, relationships: { $account: large.accountId } },
    });
    await explain(db, large);
  } finally {
    stopService();
    await db.end();
    await stopDatabase();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

#!/usr/bin/env node
/**
 * What a transaction-mode pooler costs, for README "At scale": the built service (npm run build
 * first) on the machine's PostgreSQL (BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres,
 * where it makes a scratch database and drops it), one `api` process reaching it directly
 * (DATABASE_POOL_MODE=session) and one through PgBouncer 1.18 in transaction mode
 * (scripts/pgbouncer.sh), runs alternated: a note's get and create at 32 connections, req/s and
 * p50 per process. Then the deliveries one `worker` process makes per second, each way: a backlog
 * of BENCH_DELIVERIES note.created events to one endpoint on loopback that answers 204 at once,
 * made by a worker started after the backlog was written, counted from its first delivery to its last.
 *
 *   npm run build && node scripts/bench-pool-mode.js      # BENCH_SECONDS (5), BENCH_ROUNDS (2), BENCH_DELIVERIES (2000)
 */
const autocannon = require('autocannon');
const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, readFileSync } = require('node:fs');
const { createServer } = require('node:http');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { printTable, runBench, seedWorkspace, startService } = require('../dist/bench/support');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2000);
const SERVER_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PGBOUNCER = path.join(__dirname, 'pgbouncer.sh');
const SERVICE_VERSION = require('../dist/src/common/versioning/service-version').SERVICE_VERSION;

async function onServer(sql) {
  const client = new Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function load(port, key, { method = 'GET', path: target, body, amount, connections = 32 }) {
  return autocannon({
    url: `http://127.0.0.1:${port}${target}`,
    method,
    connections,
    ...(amount ? { amount } : { duration: SECONDS }),
    headers: { Authorization: `Bearer ${key}`, 'Service-Version': SERVICE_VERSION, 'Content-Type': 'application/json' },
    body: body && JSON.stringify(body),
  });
}

/** A receiver on loopback answering 204 at once, counting the distinct webhook-ids and when the first and the last arrived. */
async function startReceiver() {
  const seen = new Set();
  let firstAt = 0;
  let lastAt = 0;
  const server = createServer((request, response) => {
    seen.add(request.headers['webhook-id']);
    lastAt = Date.now();
    firstAt ||= lastAt;
    request.resume().on('end', () => response.writeHead(204).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    seen,
    firstAt: () => firstAt,
    lastAt: () => lastAt,
    url: `http://127.0.0.1:${server.address().port}/hooks`,
  };
}

runBench(async (folder) => {
  const name = `records_bench_pool_${randomBytes(4).toString('hex')}`;
  const direct = Object.assign(new URL(SERVER_URL), { pathname: `/${name}` }).toString();
  const poolerFolder = mkdtempSync(path.join(tmpdir(), 'pgbouncer-'));
  await onServer(`CREATE DATABASE ${name}`);
  // runBench's teardown runs after the processes stop: the database and the pooler go with them.
  process.once('exit', () => {
    execFileSync(PGBOUNCER, ['stop', poolerFolder]);
    execFileSync('psql', [SERVER_URL, '-qc', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
  });
  execFileSync(PGBOUNCER, ['start', poolerFolder]);
  const pooled = `${/PGBOUNCER_URL=(\S+)/.exec(readFileSync(path.join(poolerFolder, 'env'), 'utf8'))[1]}/${name}`;
  const modes = {
    direct: { DATABASE_URL: direct, DATABASE_POOL_MODE: 'session' },
    pgbouncer: { DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct, DATABASE_POOL_MODE: 'transaction' },
  };
  const common = { RATE_LIMIT_READ: '1000000', RATE_LIMIT_WRITE: '1000000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

  const apis = {};
  for (const [mode, env] of Object.entries(modes))
    apis[mode] = await startService(path.join(folder, mode), env.DATABASE_URL, { ...common, ...env, ROLES: 'api' });
  const db = new Client({ connectionString: direct });
  await db.connect();
  const ws = await seedWorkspace(db, 'pool mode bench');
  const note = await fetch(`http://127.0.0.1:${apis.direct.port}/v1/notes`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${ws.key}`,
      'Service-Version': SERVICE_VERSION,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ fields: { $title: 'read back' } }),
  }).then((response) => response.json());

  const scenarios = {
    get: { path: `/v1/notes/${note.id}` },
    create: { method: 'POST', path: '/v1/notes', body: { fields: { $title: 'pool mode bench' } } },
  };
  const totals = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [scenario, options] of Object.entries(scenarios)) {
      for (const mode of Object.keys(modes)) {
        const result = await load(apis[mode].port, ws.key, options);
        const total = (totals[`${scenario} ${mode}`] ??= { requests: 0, seconds: 0, p50s: [], failed: 0 });
        total.requests += result.requests.total;
        total.seconds += result.duration;
        total.p50s.push(result.latency.p50);
        total.failed += result.non2xx + result.errors;
      }
    }
  }
  const rows = [];
  for (const scenario of Object.keys(scenarios)) {
    const rate = (mode) => totals[`${scenario} ${mode}`].requests / totals[`${scenario} ${mode}`].seconds;
    for (const mode of Object.keys(modes)) {
      const total = totals[`${scenario} ${mode}`];
      rows.push([
        scenario,
        mode,
        rate(mode).toFixed(0),
        Math.max(...total.p50s),
        total.failed,
        (rate(mode) / rate('direct')).toFixed(2),
      ]);
    }
  }
  printTable(
    ['scenario (32 connections, one api process)', 'database', 'req/s', 'p50 ms', 'non-2xx', '× direct'],
    rows,
  );

  const deliveryRows = [];
  for (const [mode, env] of Object.entries(modes)) {
    const receiver = await startReceiver();
    const endpoint = await fetch(`http://127.0.0.1:${apis[mode].port}/v1/webhooks`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${ws.key}`,
        'Service-Version': SERVICE_VERSION,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['note.created'] }),
    }).then((response) => response.json());
    await load(apis[mode].port, ws.key, { ...scenarios.create, amount: DELIVERIES, connections: 16 });
    const worker = await startService(path.join(folder, `${mode}-worker`), env.DATABASE_URL, {
      ...common,
      ...env,
      ROLES: 'worker',
    });
    while (receiver.seen.size < DELIVERIES) await new Promise((resolve) => setTimeout(resolve, 100));
    // From the first delivery to the last: a process's start (modules loaded, migrations checked) is no delivery's cost.
    const seconds = (receiver.lastAt() - receiver.firstAt()) / 1000;
    deliveryRows.push([mode, receiver.seen.size, seconds.toFixed(1), (receiver.seen.size / seconds).toFixed(0)]);
    process.kill(worker.pid, 'SIGTERM');
    await fetch(`http://127.0.0.1:${apis[mode].port}/v1/webhooks/${endpoint.id}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${ws.key}`, 'Service-Version': SERVICE_VERSION },
    });
    receiver.server.close();
  }
  printTable(['deliveries (one worker process, first to last)', 'delivered', 'seconds', 'per second'], deliveryRows);
  await db.end();
});

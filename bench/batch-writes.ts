/**
 * Batch writes against single creates (part of `npm run bench`, through bench/run.ts; alone:
 * `node dist/bench/batch-writes.js` after `npm run build`). At 4 connections, in one workspace:
 *
 *  - single creates of contacts for BENCH_SECONDS: items/s;
 *  - BATCH_CONTACTS contacts (default 100,000) by `batch/create`, 100 per call: items/s, ≥ 8× the single creates';
 *  - as many by `batch/upsert` on externalId, each call half contacts the batch/create made (changed) and half new: ≥ 5×.
 */
import autocannon from 'autocannon';
import { cpus, loadavg } from 'node:os';
import { Client } from 'pg';
import {
  BenchServer,
  BenchWorkspace,
  printTable,
  runBench,
  seedWorkspace,
  startBenchDatabase,
  startService,
} from './support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONTACTS = Number(process.env.BATCH_CONTACTS ?? 100_000);
const PER_CALL = 100;
const CONNECTIONS = 4;

/** A budget as bench/run.ts prints it. */
export interface BatchBudget {
  goal: string;
  measured: number;
  target: number;
  atLeast: boolean;
}

/** Items a second of `calls` POSTs to `path` at CONNECTIONS connections, each `items` inputs, bodies made per call; every call must succeed. */
async function itemsPerSecond(
  service: BenchServer,
  workspace: BenchWorkspace,
  path: string,
  load: { bodyOf: (call: number) => unknown; items: number; calls?: number; seconds?: number },
): Promise<{ perSecond: number; p50: number; seconds: number }> {
  let next = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${service.port}`,
    connections: CONNECTIONS,
    ...(load.calls !== undefined ? { amount: load.calls } : { duration: load.seconds ?? SECONDS }),
    timeout: 120,
    headers: {
      authorization: `Bearer ${workspace.key}`,
      'service-version': '2026-03-01',
      'content-type': 'application/json',
    },
    requests: [
      { method: 'POST', path, setupRequest: (request) => ({ ...request, body: JSON.stringify(load.bodyOf(next++)) }) },
    ],
  });
  if (result.non2xx + result.errors > 0)
    throw new Error(`${path}: ${result.non2xx} answers not 2xx, ${result.errors} errors`);
  return {
    perSecond: (result.requests.total * load.items) / result.duration,
    p50: result.latency.p50,
    seconds: result.duration,
  };
}

const contact = (externalId: string, title: string) => ({
  externalId,
  fields: { $name: { firstName: title, lastName: externalId }, $email: [`${externalId}@example.com`] },
});

/** The batch budgets, measured on `service` in a workspace of their own. */
export async function batchWriteBudgets(db: Client, service: BenchServer): Promise<BatchBudget[]> {
  const workspace = await seedWorkspace(db, 'batch writes');
  const calls = Math.ceil(CONTACTS / PER_CALL);
  console.log(
    `\nbatch writes: ${CONNECTIONS} connections, ${calls.toLocaleString('en-US')} calls of ${PER_CALL} contacts against single creates`,
  );
  // Warm up each route (connections, prepared statements, JIT) before measuring.
  await itemsPerSecond(service, workspace, '/v1/contacts', {
    bodyOf: (i) => contact(`warm-${i}`, 'Warm'),
    items: 1,
    seconds: 1,
  });
  await itemsPerSecond(service, workspace, '/v1/contacts/batch/create', {
    bodyOf: (i) => ({ inputs: Array.from({ length: PER_CALL }, (_, j) => contact(`warm-batch-${i}-${j}`, 'Warm')) }),
    items: PER_CALL,
    calls: 20,
  });

  const single = await itemsPerSecond(service, workspace, '/v1/contacts', {
    bodyOf: (i) => contact(`single-${i}`, 'Single'),
    items: 1,
  });
  const created = await itemsPerSecond(service, workspace, '/v1/contacts/batch/create', {
    bodyOf: (call) => ({
      inputs: Array.from({ length: PER_CALL }, (_, j) => contact(`batch-${call * PER_CALL + j}`, 'Created')),
    }),
    items: PER_CALL,
    calls,
  });
  // Each call: half contacts batch/create made (a new name: a real update), half new ones.
  const upserted = await itemsPerSecond(service, workspace, '/v1/contacts/batch/upsert', {
    bodyOf: (call) => ({
      matchOn: 'externalId',
      inputs: Array.from({ length: PER_CALL }, (_, j) =>
        j % 2 === 0
          ? contact(`batch-${call * PER_CALL + j}`, 'Upserted')
          : contact(`upserted-${call * PER_CALL + j}`, 'Upserted'),
      ),
    }),
    items: PER_CALL,
    calls,
  });
  // A 207 is a 2xx: every input must have been written, as many records as asked for.
  const { rows } = await db.query<{ created: number; upserted: number }>(
    `SELECT count(*) FILTER (WHERE external_id LIKE 'batch-%')::int AS created, count(*) FILTER (WHERE external_id LIKE 'upserted-%')::int AS upserted
       FROM records WHERE workspace_id = $1`,
    [workspace.id],
  );
  if (rows[0].created !== calls * PER_CALL || rows[0].upserted !== (calls * PER_CALL) / 2) {
    throw new Error(
      `batch writes: ${rows[0].created} created and ${rows[0].upserted} upserted contacts, not ${calls * PER_CALL} and ${(calls * PER_CALL) / 2}`,
    );
  }
  printTable(
    ['scenario', 'items/s', 'p50 ms per call', 'seconds', '× single'],
    [
      ['single create', single.perSecond.toFixed(0), single.p50, single.seconds.toFixed(1), '1.00'],
      [
        `batch/create, ${CONTACTS.toLocaleString('en-US')}`,
        created.perSecond.toFixed(0),
        created.p50,
        created.seconds.toFixed(1),
        (created.perSecond / single.perSecond).toFixed(2),
      ],
      [
        `batch/upsert, half new`,
        upserted.perSecond.toFixed(0),
        upserted.p50,
        upserted.seconds.toFixed(1),
        (upserted.perSecond / single.perSecond).toFixed(2),
      ],
    ],
  );
  return [
    {
      goal: 'batch/create items/s vs single creates, 4 connections',
      measured: created.perSecond / single.perSecond,
      target: 8,
      atLeast: true,
    },
    {
      goal: 'batch/upsert (externalId, half new) items/s vs single creates',
      measured: upserted.perSecond / single.perSecond,
      target: 5,
      atLeast: true,
    },
  ];
}

if (require.main === module) {
  runBench(async (folder) => {
    console.log(
      `${new Date().toISOString()}  ${cpus().length} CPUs, load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
    );
    const database = await startBenchDatabase(folder);
    const db = new Client({ connectionString: database.url });
    await db.connect();
    const service = await startService(folder, database.url, {
      RATE_LIMIT_WRITE: '1000000',
      RATE_LIMIT_BATCH_ITEMS: '1000000',
    });
    const budgets = await batchWriteBudgets(db, service);
    printTable(
      ['goal', 'measured', 'target', ''],
      budgets.map(({ goal, measured, target }) => [
        goal,
        measured.toFixed(2),
        `≥ ${target}`,
        measured >= target ? 'PASS' : 'MISS',
      ]),
    );
    await db.end();
  });
}

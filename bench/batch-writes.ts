/**
 * Imports: batch writes against single creates and against what PostgreSQL itself can insert (part
 * of `npm run bench`, through bench/run.ts; alone: `node dist/bench/batch-writes.js` after
 * `npm run build`). Contacts with a name, an email, a `unique` work email and an account (each
 * call's contacts link one account, which each create changes too):
 *
 *  - the limit arm (bench/import-limit.ts): BATCH_CONTACTS contacts (default 100,000) by
 *    set-based SQL on one connection, no HTTP, in a workspace of their own: rows/s;
 *  - at 4 connections, single creates for BENCH_SECONDS: items/s;
 *  - BATCH_CONTACTS contacts by `batch/create`, 100 per call: items/s, ≥ 8× the single creates'
 *    and ≥ 0.5× the limit's; node and PostgreSQL CPU per item;
 *  - as many by `batch/upsert` on externalId, each call half contacts the batch/create made
 *    (changed) and half new: ≥ 5× the single creates', ≥ 0.4× the limit's.
 */
import autocannon from 'autocannon';
import { cpus, loadavg } from 'node:os';
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import { type ImportedContact, importAtTheLimit } from './import-limit';
import {
  BenchServer,
  BenchWorkspace,
  type Cost,
  measured,
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
const ACCOUNTS = 100;

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

/** An import's workspace: contacts get a `unique` work email; ACCOUNTS accounts to link. */
async function importWorkspace(db: Client, service: BenchServer, name: string): Promise<ImportWorkspace> {
  const workspace = await seedWorkspace(db, name);
  await db.query(
    `INSERT INTO field_definitions (id, workspace_id, object_type, key, label, value_type, type_configuration)
     VALUES ($1, $2, 'contact', 'workEmail', 'Work email', 'EMAIL', '{"unique": true}')`,
    [newId('field'), workspace.id],
  );
  const made = await post(service, workspace, '/v1/accounts/batch/create', {
    inputs: Array.from({ length: ACCOUNTS }, (_, i) => ({ fields: { $name: `Account ${i}` } })),
  });
  const accounts = (made as { results: { data: { id: string } }[] }).results.map((result) => result.data.id);
  return { ...workspace, accounts };
}

interface ImportWorkspace extends BenchWorkspace {
  accounts: string[];
}

async function post(service: BenchServer, workspace: BenchWorkspace, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${service.port}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${workspace.key}`,
      'service-version': '2026-03-01',
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The contact of an import: the item `index` of call `call` links that call's account. */
function contactOf(workspace: ImportWorkspace, externalId: string, title: string, call: number): ImportedContact {
  return {
    externalId,
    fields: {
      $name: { firstName: title, lastName: externalId },
      $email: [`${externalId}@example.com`],
      workEmail: `${externalId}@work.example.com`,
    },
    account: workspace.accounts[call % ACCOUNTS],
  };
}

/** The contact as an input of the API. */
const input = ({ externalId, fields, account }: ImportedContact) => ({
  externalId,
  fields,
  relationships: { $account: account },
});

/** The statements of an import, the costliest first: calls and ms executing per item, and the statement. */
function printStatements(name: string, cost: Cost, items: number): void {
  console.log(`\n  ${name}: per item, calls and ms executing; the statement`);
  for (const { calls, milliseconds, query } of cost.statements.slice(0, 12))
    console.log(
      `  ${(calls / items).toFixed(3).padStart(7)} ${(milliseconds / items).toFixed(3).padStart(7)}  ${query.replace(/\s+/g, ' ').slice(0, 160)}`,
    );
}

/** CPU ms per item of a measured import. */
const perItem = (cost: Cost, items: number) => ({
  node: (cost.nodeSeconds * 1000) / items,
  postgres: (cost.postgresSeconds * 1000) / items,
});

/** The batch budgets, measured on `service` in a workspace of their own. */
export async function batchWriteBudgets(db: Client, databaseUrl: string, service: BenchServer): Promise<BatchBudget[]> {
  const workspace = await importWorkspace(db, service, 'batch writes');
  const calls = Math.ceil(CONTACTS / PER_CALL);
  console.log(
    `\nimports: ${calls.toLocaleString('en-US')} calls of ${PER_CALL} contacts at ${CONNECTIONS} connections, against single creates and against set-based SQL on one connection`,
  );
  const limitWorkspace = await importWorkspace(db, service, 'import limit');
  // One contact's answer is the data of its event: the limit arm writes its events after it.
  const template = (await post(
    service,
    limitWorkspace,
    '/v1/contacts',
    input(contactOf(limitWorkspace, 'template', 'Template', 0)),
  )) as Record<string, unknown>;
  // A connection of its own, open until its CPU is read: the bench leaves its own connection's out.
  const importer = new Client({ connectionString: databaseUrl });
  await importer.connect();
  const limit = await measured(db, service.pid, () =>
    importAtTheLimit(
      importer,
      limitWorkspace,
      Array.from({ length: calls * PER_CALL }, (_, i) =>
        contactOf(limitWorkspace, `limit-${i}`, 'Limit', Math.floor(i / PER_CALL)),
      ),
      template,
    ),
  );
  await importer.end();
  // Warm up each route (connections, prepared statements, JIT) before measuring.
  await itemsPerSecond(service, workspace, '/v1/contacts', {
    bodyOf: (i) => input(contactOf(workspace, `warm-${i}`, 'Warm', i)),
    items: 1,
    seconds: 1,
  });
  await itemsPerSecond(service, workspace, '/v1/contacts/batch/create', {
    bodyOf: (i) => ({
      inputs: Array.from({ length: PER_CALL }, (_, j) =>
        input(contactOf(workspace, `warm-batch-${i}-${j}`, 'Warm', i)),
      ),
    }),
    items: PER_CALL,
    calls: 20,
  });

  const singles = await measured(db, service.pid, () =>
    itemsPerSecond(service, workspace, '/v1/contacts', {
      bodyOf: (i) => input(contactOf(workspace, `single-${i}`, 'Single', i)),
      items: 1,
    }),
  );
  const single = singles.result;
  const created = await measured(db, service.pid, () =>
    itemsPerSecond(service, workspace, '/v1/contacts/batch/create', {
      bodyOf: (call) => ({
        inputs: Array.from({ length: PER_CALL }, (_, j) =>
          input(contactOf(workspace, `batch-${call * PER_CALL + j}`, 'Created', call)),
        ),
      }),
      items: PER_CALL,
      calls,
    }),
  );
  // Each call: half contacts batch/create made (a new name: a real update), half new ones.
  const upserted = await measured(db, service.pid, () =>
    itemsPerSecond(service, workspace, '/v1/contacts/batch/upsert', {
      bodyOf: (call) => ({
        matchOn: 'externalId',
        inputs: Array.from({ length: PER_CALL }, (_, j) =>
          input(
            j % 2 === 0
              ? contactOf(workspace, `batch-${call * PER_CALL + j}`, 'Upserted', call)
              : contactOf(workspace, `upserted-${call * PER_CALL + j}`, 'Upserted', call),
          ),
        ),
      }),
      items: PER_CALL,
      calls,
    }),
  );
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
  const items = calls * PER_CALL;
  if (process.env.BENCH_STATEMENTS === '1') {
    printStatements('single create', singles.cost, single.perSecond * single.seconds);
    for (const [name, { cost }] of [
      ['limit', limit],
      ['batch/create', created],
      ['batch/upsert', upserted],
    ] as const)
      printStatements(name, cost, items);
  }
  const limitCost = perItem(limit.cost, items);
  // A batch arm's row: its rate against the single creates' and the limit's, and its CPU per item.
  const batchRow = (name: string, { result, cost }: { result: typeof created.result; cost: Cost }) => [
    name,
    result.perSecond.toFixed(0),
    result.p50,
    result.seconds.toFixed(1),
    (result.perSecond / single.perSecond).toFixed(2),
    (result.perSecond / limit.result).toFixed(2),
    perItem(cost, items).node.toFixed(3),
    perItem(cost, items).postgres.toFixed(3),
  ];
  printTable(
    ['scenario', 'items/s', 'p50 ms per call', 'seconds', '× single', '× limit', 'node ms/item', 'pg ms/item'],
    [
      ['single create', single.perSecond.toFixed(0), single.p50, single.seconds.toFixed(1), '1.00', '', '', ''],
      [
        `limit: set-based SQL, 1 connection`,
        limit.result.toFixed(0),
        '',
        (items / limit.result).toFixed(1),
        (limit.result / single.perSecond).toFixed(2),
        '1.00',
        '',
        limitCost.postgres.toFixed(3),
      ],
      batchRow(`batch/create, ${CONTACTS.toLocaleString('en-US')}`, created),
      batchRow('batch/upsert, half new', upserted),
    ],
  );
  const atLeast = (goal: string, measured: number, target: number): BatchBudget => ({
    goal,
    measured,
    target,
    atLeast: true,
  });
  return [
    atLeast('batch/create items/s vs single creates, 4 connections', created.result.perSecond / single.perSecond, 8),
    atLeast(
      'batch/upsert (externalId, half new) items/s vs single creates',
      upserted.result.perSecond / single.perSecond,
      5,
    ),
    atLeast(
      'batch/create items/s vs the limit (set-based SQL, 1 connection)',
      created.result.perSecond / limit.result,
      0.5,
    ),
    atLeast('batch/upsert (externalId, half new) items/s vs the limit', upserted.result.perSecond / limit.result, 0.4),
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
    const budgets = await batchWriteBudgets(db, database.url, service);
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

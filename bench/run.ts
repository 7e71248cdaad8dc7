/**
 * `npm run bench`: the built service against the bare baselines (bench/baseline-server.ts: bare
 * Express, the HTTP layer of the service's stack, and bare node:http) on one
 * seeded embedded PostgreSQL, then the service alone. Prints, per scenario, req/s and p50/p99 (ms),
 * and per request the CPU of node and of PostgreSQL and the statements PostgreSQL ran; then the
 * budgets of the performance goal with PASS or MISS. Exits 0 either way: it is an instrument.
 *
 *  1. Service vs the baselines at 32 connections, on 10,000 notes: get, create (also at 1 connection:
 *     one workspace's creates must scale), update, list page, list with `$title[startsWith]` and
 *     with `$account=`. Runs alternate service, Express, node:http, service… so that the
 *     machine's noise hits both.
 *     Then what change events cost a create, and the sync section (bench/sync.ts): creates with 1,
 *     10 and 100 subscribed webhook endpoints, and with 10 feed consumers polling, against none.
 *  2. Service alone at 32 connections: custom-object filters, a list's members, meetings.
 *  3. Scale, service alone at 8 connections: BENCH_SCALE notes (default 100,000) in one workspace
 *     and 1,000 in another: p50 of the same lists in both, exact totalCount, peak RSS; and the
 *     last page, read with the cursor of the page before it, against the first page.
 *
 * BENCH_SECONDS per run (default 5), BENCH_ROUNDS rounds of the arms per scenario (default 2);
 * BENCH_STATEMENTS=1 also prints every scenario's statements; BENCH_ONLY=text runs only the
 * scenarios whose name holds that text (to measure one change quickly; its budgets are partial).
 * BENCH_AGAINST=<dist/ of another build> adds that build's service as an arm of section 1,
 * alternated with this one's on the same database (a change against main: same run, same noise).
 */
import autocannon from 'autocannon';
import { cpus, loadavg, totalmem } from 'node:os';
import { Client } from 'pg';
import { encodeFeedCursor } from '../src/modules/events/feed-cursor';
import { BASELINE_INDEXES } from './baseline-server';
import { batchWriteBudgets } from './batch-writes';
import { searchAtScale } from './search';
import { NOTES_PER_ACCOUNT, NotesWorkspace, seedCustomTypeAndList, seededId, seedMeetings, seedNotes } from './seed';
import { backlogDrain, fanOutCost, longPollWake, pollerCost, startSyncTopology } from './sync';
import {
  BENCH_SERVICE_ENV,
  BenchServer,
  Budget,
  BenchWorkspace,
  Cost,
  measured,
  StatementStats,
  printBudgets,
  printTable,
  rssBytes,
  runBench,
  startBaseline,
  startBenchDatabase,
  startService,
} from './support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SCALE = Number(process.env.BENCH_SCALE ?? 100_000);
const SHOW_STATEMENTS = process.env.BENCH_STATEMENTS === '1';
const ONLY = process.env.BENCH_ONLY ?? '';
const AGAINST = process.env.BENCH_AGAINST;
const chosen = <T extends { name: string }>(scenarios: T[]): T[] => scenarios.filter(({ name }) => name.includes(ONLY));
const READ_NOTES = 10_000;
const SMALL_NOTES = 1_000;
const CUSTOM_RECORDS = 100_000;
const LIST_MEMBERS = 10_000;
const MEETINGS = 50_000;

interface Load {
  workspace: BenchWorkspace;
  method?: 'GET' | 'POST';
  /** Requested in turn. */
  paths: string[];
  /** The body of each request: a value, or made per request (so that each update changes something). */
  body?: unknown;
  bodyOf?: (index: number) => unknown;
  connections?: number;
}

/** Runs of one load against one server, added up. */
class Runs {
  /** Answered within the runs. */
  requests = 0;
  /** The answered and those in flight when a run stopped, whose work the costs include. */
  sent = 0;
  seconds = 0;
  failed = 0;
  nodeSeconds = 0;
  postgresSeconds = 0;
  readonly statements = new Map<string, Omit<StatementStats, 'query'>>();
  private readonly p50s: number[] = [];
  private readonly p99s: number[] = [];

  add(result: autocannon.Result, cost: Cost): void {
    this.requests += result.requests.total;
    this.sent += result.requests.sent;
    this.seconds += result.duration;
    this.failed += result.non2xx + result.errors;
    this.p50s.push(result.latency.p50);
    this.p99s.push(result.latency.p99);
    this.nodeSeconds += cost.nodeSeconds;
    this.postgresSeconds += cost.postgresSeconds;
    for (const { query, ...stats } of cost.statements) {
      const seen = this.statements.get(query);
      this.statements.set(query, {
        calls: stats.calls + (seen?.calls ?? 0),
        milliseconds: stats.milliseconds + (seen?.milliseconds ?? 0),
        plans: stats.plans + (seen?.plans ?? 0),
        planMilliseconds: stats.planMilliseconds + (seen?.planMilliseconds ?? 0),
      });
    }
  }

  get perSecond(): number {
    return this.requests / this.seconds;
  }
  /** Mean over the runs. */
  get p50(): number {
    return mean(this.p50s);
  }
  get p99(): number {
    return mean(this.p99s);
  }
  get nodeMs(): number {
    return (this.nodeSeconds * 1000) / this.sent;
  }
  get postgresMs(): number {
    return (this.postgresSeconds * 1000) / this.sent;
  }
  get statementsPerRequest(): number {
    return [...this.statements.values()].reduce((sum, statement) => sum + statement.calls, 0) / this.sent;
  }

  printStatements(title: string): void {
    console.log(
      `\n  ${title}: per request, mean ms executing, share of calls planned, mean ms planning; the statement`,
    );
    for (const [query, { calls, milliseconds, plans, planMilliseconds }] of [...this.statements].sort(
      (a, b) => b[1].milliseconds + b[1].planMilliseconds - a[1].milliseconds - a[1].planMilliseconds,
    )) {
      const numbers = [calls / this.sent, milliseconds / calls, plans / calls, plans ? planMilliseconds / plans : 0];
      console.log(
        `  ${numbers.map((value) => value.toFixed(3).padStart(7)).join(' ')}  ${query.replace(/\s+/g, ' ').slice(0, 150)}`,
      );
    }
  }
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const count = (value: number) => Math.round(value).toLocaleString('en-US');
const filter = (key: string, value: string) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`;

/** Drives `server` with `load` for `seconds` (after a checkpoint), added to `runs`; `sample` runs every 100 ms meanwhile. */
async function drive(
  db: Client,
  server: BenchServer,
  load: Load,
  seconds: number,
  runs = new Runs(),
  sample?: () => void,
): Promise<Runs> {
  await db.query('CHECKPOINT');
  let next = 0;
  const sampler = sample && setInterval(sample, 100);
  try {
    const { result, cost } = await measured(db, server.pid, () =>
      autocannon({
        url: `http://127.0.0.1:${server.port}`,
        connections: load.connections ?? 32,
        duration: seconds,
        timeout: 60,
        headers: {
          authorization: `Bearer ${load.workspace.key}`,
          'service-version': '2026-03-01',
          'content-type': 'application/json',
        },
        requests: [
          {
            method: load.method ?? 'GET',
            body: load.body === undefined ? undefined : JSON.stringify(load.body),
            setupRequest: (request) => {
              const index = next++;
              const body = load.bodyOf ? JSON.stringify(load.bodyOf(index)) : request.body;
              return { ...request, path: load.paths[index % load.paths.length], body };
            },
          },
        ],
      }),
    );
    runs.add(result, cost);
    return runs;
  } finally {
    if (sampler) clearInterval(sampler);
  }
}

interface Versus {
  name: string;
  load: Load;
  /** Least service req/s over bare node:http's. */
  ratioGoal?: number;
  /** Most service node CPU per request over bare Express's. */
  expressNodeGoal?: number;
}

/** A server a scenario runs against, by the name its columns carry. */
interface Arm {
  name: string;
  server: BenchServer;
}

type ArmRuns = Map<string, Runs>;

/** Section 1: each scenario in ROUNDS rounds of one run per arm, in turn (the service, bare Express, bare node:http). */
async function versusBaseline(db: Client, arms: Arm[], scenarios: Versus[]): Promise<Map<Versus, ArmRuns>> {
  console.log('\nwarming up the servers…');
  for (const { load } of scenarios) for (const { server } of arms) await drive(db, server, load, 1);
  console.log(
    `\n1. service vs the bare servers: ${count(READ_NOTES)} notes, ${SECONDS} s runs, ${ROUNDS} rounds of ${arms.map(({ name }) => name).join(', ')}`,
  );
  const results = new Map<Versus, ArmRuns>();
  for (const scenario of scenarios) {
    const runs: ArmRuns = new Map(arms.map(({ name }) => [name, new Runs()]));
    for (let round = 0; round < ROUNDS; round += 1)
      for (const { name, server } of arms) await drive(db, server, scenario.load, SECONDS, runs.get(name));
    results.set(scenario, runs);
    if (SHOW_STATEMENTS) for (const [name, armRuns] of runs) armRuns.printStatements(`${scenario.name}, ${name}`);
  }
  const [service, ...bare] = arms.map(({ name }) => name);
  console.log('');
  printTable(
    [
      'scenario',
      'conns',
      ...arms.flatMap(({ name }) => [`${name} req/s`, 'p50', 'p99']),
      ...bare.map((name) => `÷ ${name}`),
      'failed',
    ],
    [...results].map(([{ name, load }, runs]) => [
      name,
      load.connections ?? 32,
      ...[...runs.values()].flatMap((armRuns) => [count(armRuns.perSecond), armRuns.p50, armRuns.p99]),
      ...bare.map((arm) => fixed(runs.get(service)!.perSecond / runs.get(arm)!.perSecond)),
      [...runs.values()].reduce((sum, armRuns) => sum + armRuns.failed, 0),
    ]),
  );
  console.log('\nper request: CPU ms of node and of PostgreSQL (client backends), statements PostgreSQL ran');
  printTable(
    [
      'scenario',
      ...arms.flatMap(({ name }) => [`${name} node`, 'pg', 'stmts']),
      ...bare.map((name) => `node ÷ ${name}`),
    ],
    [...results].map(([{ name }, runs]) => [
      name,
      ...[...runs.values()].flatMap((armRuns) => [
        fixed(armRuns.nodeMs, 3),
        fixed(armRuns.postgresMs, 3),
        fixed(armRuns.statementsPerRequest, 1),
      ]),
      ...bare.map((arm) => fixed(runs.get(service)!.nodeMs / runs.get(arm)!.nodeMs)),
    ]),
  );
  return results;
}

/**
 * What writing a change event costs a create. The service cannot create without its event, so
 * the baseline stands in: its create with the event (the service's SQL: record and event in one
 * statement) against the same create without, in alternating runs. The budget is the CPU (node +
 * PostgreSQL) the event adds, as a share of what the service's create costs: the share of creates
 * per second the event costs the service on a machine its creates keep busy. (By hand, the service
 * before events against this one, alternating on one database: docs in the README.)
 */
async function eventCost(db: Client, baseline: BenchServer, create: Load, serviceCreateMs: number): Promise<Budget> {
  console.log(`\nevents: the baseline's create with its change event vs without, ${ROUNDS} rounds of ${SECONDS} s`);
  const withEvent = new Runs();
  const without = new Runs();
  for (let round = 0; round < ROUNDS; round += 1) {
    await drive(db, baseline, create, SECONDS, withEvent);
    await drive(
      db,
      baseline,
      { ...create, paths: create.paths.map((path) => `${path}?events=none`) },
      SECONDS,
      without,
    );
  }
  printTable(
    ['create', 'req/s', 'p50', 'p99', 'node ms', 'pg ms', 'failed'],
    [
      [
        'with event',
        count(withEvent.perSecond),
        withEvent.p50,
        withEvent.p99,
        fixed(withEvent.nodeMs, 3),
        fixed(withEvent.postgresMs, 3),
        withEvent.failed,
      ],
      [
        'without',
        count(without.perSecond),
        without.p50,
        without.p99,
        fixed(without.nodeMs, 3),
        fixed(without.postgresMs, 3),
        without.failed,
      ],
    ],
  );
  const added = withEvent.nodeMs + withEvent.postgresMs - (without.nodeMs + without.postgresMs);
  console.log(
    `an event adds ${fixed(added, 3)} ms of CPU to a create; the service's create costs ${fixed(serviceCreateMs, 3)} ms`,
  );
  return {
    goal: "creates: CPU an event adds, share of the service's create",
    measured: added / serviceCreateMs,
    target: 0.1,
    atLeast: false,
  };
}

/** Section 2: one run each. */
async function serviceAlone(
  db: Client,
  service: BenchServer,
  scenarios: { name: string; load: Load }[],
): Promise<void> {
  console.log(`\n2. service alone, 32 connections, ${SECONDS} s`);
  const rows: unknown[][] = [];
  for (const { name, load } of scenarios) {
    const runs = await drive(db, service, load, SECONDS);
    if (SHOW_STATEMENTS) runs.printStatements(name);
    const { perSecond, p50, p99, nodeMs, postgresMs, statementsPerRequest, failed } = runs;
    rows.push([
      name,
      count(perSecond),
      p50,
      p99,
      fixed(nodeMs, 3),
      fixed(postgresMs, 3),
      fixed(statementsPerRequest, 1),
      failed,
    ]);
  }
  printTable(['scenario', 'req/s', 'p50', 'p99', 'node ms', 'pg ms', 'stmts', 'failed'], rows);
}

/** A page's body, as the scale section reads it. */
interface ListBody {
  totalCount?: number;
  nextCursor?: string | null;
}

interface ScaleList {
  name: string;
  /** The list's path in `workspace`; `read` answers the body of a GET by `workspace`'s key. */
  path: (workspace: NotesWorkspace, read: (path: string) => Promise<ListBody>) => string | Promise<string>;
  /** Whether seeded note g (see seedNotes) is in the list. */
  holds: (workspace: NotesWorkspace) => (g: number) => boolean;
}

const FIRST_PAGE = 'first page';
const DEEP_OFFSET = 'offset=10000 (n/2 if fewer)';
const LAST_CURSOR = 'last page, by cursor';
const PAGE = 25;

const SCALE_LISTS: ScaleList[] = [
  { name: FIRST_PAGE, path: () => '/v1/notes', holds: () => () => true },
  { name: DEEP_OFFSET, path: (w) => `/v1/notes?offset=${Math.min(10_000, w.notes / 2)}`, holds: () => () => true },
  {
    // The nextCursor of the page before the last (read once, by its offset) reads the last page.
    name: LAST_CURSOR,
    path: async (w, read) => {
      const beforeLast = Math.max(0, (Math.ceil(w.notes / PAGE) - 2) * PAGE);
      const { nextCursor } = await read(`/v1/notes?offset=${beforeLast}`);
      if (typeof nextCursor !== 'string') throw new Error(`no cursor at offset ${beforeLast} of ${w.notes} notes`);
      return `/v1/notes?cursor=${nextCursor}`;
    },
    holds: () => () => true,
  },
  {
    name: '$title[startsWith]=Note 123',
    path: () => `/v1/notes?${filter('$title[startsWith]', 'Note 123')}`,
    holds: () => (g) => String(g).startsWith('123'),
  },
  {
    name: `$account= (${NOTES_PER_ACCOUNT} notes)`,
    path: (w) => `/v1/notes?${filter('$account', seededId('acc', w.batch, 7))}`,
    holds: (w) => (g) => (g - 1) % Math.ceil(w.notes / NOTES_PER_ACCOUNT) === 6,
  },
  {
    name: '$createdBy= (99% of notes)',
    path: (w) => `/v1/notes?${filter('$createdBy', w.memberId)}`,
    holds: () => (g) => g % 100 !== 0,
  },
];

/** Section 3: p50 of each list in a big and a small workspace, totalCount checked against the seed. */
async function atScale(
  db: Client,
  service: BenchServer,
  big: NotesWorkspace,
  small: NotesWorkspace,
): Promise<Budget[]> {
  console.log(
    `\n3. scale: service alone, 8 connections, ${SECONDS} s, ${count(big.notes)} vs ${count(small.notes)} notes in a workspace`,
  );
  let peakRss = 0;
  let wrongTotals = 0;
  const budgets: Budget[] = [];
  const rows: unknown[][] = [];
  const p50s = new Map<string, number>();
  for (const { name, path, holds } of chosen(SCALE_LISTS)) {
    const p50 = new Map<NotesWorkspace, number>();
    const totals: string[] = [];
    for (const workspace of [big, small]) {
      const read = async (target: string) => {
        const response = await fetch(`http://127.0.0.1:${service.port}${target}`, {
          headers: { authorization: `Bearer ${workspace.key}`, 'service-version': '2026-03-01' },
        });
        return (await response.json()) as ListBody;
      };
      const target = await path(workspace, read);
      const { totalCount } = await read(target);
      let expected = 0;
      for (let g = 1, isHeld = holds(workspace); g <= workspace.notes; g += 1) if (isHeld(g)) expected += 1;
      if (totalCount !== expected) wrongTotals += 1;
      totals.push(totalCount === expected ? `${count(expected)} exact` : `WRONG: ${totalCount} for ${expected}`);
      const runs = await drive(db, service, { workspace, paths: [target], connections: 8 }, SECONDS, new Runs(), () => {
        peakRss = Math.max(peakRss, rssBytes(service.pid));
      });
      if (SHOW_STATEMENTS) runs.printStatements(`${name} at ${count(workspace.notes)}`);
      p50.set(workspace, runs.p50);
    }
    const ratio = p50.get(big)! / Math.max(p50.get(small)!, 1);
    budgets.push({
      goal: `scale: ${name}, p50 ${count(big.notes)} / ${count(small.notes)}`,
      measured: ratio,
      target: 2,
      atLeast: false,
    });
    rows.push([name, p50.get(big), p50.get(small), fixed(ratio), ...totals]);
    p50s.set(name, p50.get(big)!);
  }
  const [large, few] = [count(big.notes), count(small.notes)];
  printTable(['list', `p50 at ${large}`, `at ${few}`, 'ratio', `totalCount at ${large}`, `at ${few}`], rows);
  if (p50s.has(LAST_CURSOR) && p50s.has(FIRST_PAGE)) {
    // A cursor's page costs the first page's at any depth (docs/api.md §3); the deep offset page above is the comparison.
    const ratio = p50s.get(LAST_CURSOR)! / Math.max(p50s.get(FIRST_PAGE)!, 1);
    const offset = p50s.has(DEEP_OFFSET) ? `; ${DEEP_OFFSET}: ${p50s.get(DEEP_OFFSET)} ms` : '';
    console.log(
      `${LAST_CURSOR} at ${large}: p50 ${p50s.get(LAST_CURSOR)} ms, ${fixed(ratio)} × the first page's${offset}`,
    );
    budgets.push({
      goal: `scale: ${LAST_CURSOR}, p50 / first page's, at ${large}`,
      measured: ratio,
      target: 2,
      atLeast: false,
    });
  }
  console.log(`service peak RSS: ${(peakRss / 2 ** 20).toFixed(0)} MB`);
  budgets.push({ goal: 'scale: totalCounts wrong', measured: wrongTotals, target: 0, atLeast: false });
  budgets.push({ goal: 'scale: service peak RSS, MB', measured: peakRss / 2 ** 20, target: 300, atLeast: false });
  return budgets;
}

runBench(async (folder) => {
  console.log(
    `${new Date().toISOString()}  ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GB, ` +
      `node ${process.version}, load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}`,
  );
  const database = await startBenchDatabase(folder);
  const db = new Client({ connectionString: database.url });
  await db.connect();
  const seeding = Date.now();
  const reads = await seedNotes(db, READ_NOTES, 1);
  const writes = await seedNotes(db, SMALL_NOTES, 2);
  const custom = await seedCustomTypeAndList(db, CUSTOM_RECORDS, LIST_MEMBERS, 3);
  const meetings = await seedMeetings(db, MEETINGS, 4);
  const big = await seedNotes(db, SCALE, 5);
  const small = await seedNotes(db, SMALL_NOTES, 6);
  for (const sql of BASELINE_INDEXES) await db.query(sql);
  await db.query('VACUUM ANALYZE');
  const { rows } = await db.query<{ server_version: string }>('SHOW server_version');
  console.log(
    `PostgreSQL ${rows[0].server_version} (embedded, with pg_stat_statements), seeded in ${((Date.now() - seeding) / 1000).toFixed(0)} s` +
      `\nthe baseline's index: ${BASELINE_INDEXES.join('; ')}`,
  );

  // The API alone: the sync section starts the worker as a process of its own (bench/sync.ts).
  const service = await startService(folder, database.url, { ...BENCH_SERVICE_ENV, ROLES: 'api' });
  const baseline = await startBaseline(database.url, 'http');
  const arms: Arm[] = [
    { name: 'service', server: service },
    ...(AGAINST
      ? [
          {
            name: 'against',
            server: await startService(folder, database.url, { ...BENCH_SERVICE_ENV, ROLES: 'api' }, AGAINST),
          },
        ]
      : []),
    { name: 'express', server: await startBaseline(database.url, 'express') },
    { name: 'node:http', server: baseline },
  ];

  const notePaths = (workspace: NotesWorkspace) =>
    Array.from(
      { length: Math.min(workspace.notes, 1000) },
      (_, i) => `/v1/notes/${seededId('note', workspace.batch, i + 1)}`,
    );
  const create: Load = {
    workspace: writes,
    method: 'POST',
    paths: ['/v1/notes'],
    body: { fields: { $title: 'Bench note', $content: 'Written by the bench' } },
  };
  const update: Load = {
    workspace: writes,
    method: 'POST',
    paths: notePaths(writes),
    // A new title each time: an update that changes nothing writes nothing (docs/api.md §12).
    bodyOf: (index) => ({ fields: { $title: `Updated by the bench ${index}` } }),
  };
  // The budgets are those of the service on Express under Nest, the stack its users chose.
  const versus: Versus[] = [
    {
      name: 'get note by id',
      load: { workspace: reads, paths: notePaths(reads) },
      ratioGoal: 0.5,
      expressNodeGoal: 1.5,
    },
    { name: 'create note', load: create, ratioGoal: 0.36, expressNodeGoal: 2 },
    { name: 'create note, 1 connection', load: { ...create, connections: 1 } },
    { name: 'update note', load: update, ratioGoal: 0.4 },
    { name: 'list notes (limit 25)', load: { workspace: reads, paths: ['/v1/notes'] }, ratioGoal: 1.2 },
    {
      name: 'list $title[startsWith]=Note 123',
      load: { workspace: reads, paths: [`/v1/notes?${filter('$title[startsWith]', 'Note 123')}`] },
    },
    {
      name: `list $account= (${NOTES_PER_ACCOUNT} notes)`,
      load: { workspace: reads, paths: [`/v1/notes?${filter('$account', seededId('acc', reads.batch, 7))}`] },
    },
  ];
  const results = await versusBaseline(db, arms, chosen(versus));
  const serviceCreate = [...results].find(([{ name }]) => name === 'create note')?.[1].get('service');
  const eventBudgets = serviceCreate
    ? [await eventCost(db, baseline, create, serviceCreate.nodeMs + serviceCreate.postgresMs)]
    : [];
  const topology = await startSyncTopology(folder, db, database.url, BENCH_SERVICE_ENV, service);
  const syncBudgets = [
    ...('webhook fan-out'.includes(ONLY) ? await fanOutCost(db, topology, SECONDS, ROUNDS) : []),
    ...('webhook backlog'.includes(ONLY) ? await backlogDrain(db) : []),
    ...('feed consumers'.includes(ONLY) ? await pollerCost(db, topology, SECONDS, ROUNDS) : []),
    ...('long polls'.includes(ONLY) ? await longPollWake(db, topology) : []),
  ];

  const item = (query: string) => ({ workspace: custom, paths: [`/v1/objects/item?${query}`] });
  // The feed of the workspace the creates and updates above wrote to: its first page, and a page from its middle.
  const events = await db.query<{ total: number; middle: string | null }>(
    `SELECT count(*)::int AS total, (SELECT position::text FROM events WHERE workspace_id = $1 ORDER BY position OFFSET (SELECT count(*) / 2 FROM events WHERE workspace_id = $1) LIMIT 1) AS middle
       FROM events WHERE workspace_id = $1`,
    [writes.id],
  );
  const { total: eventCount, middle } = events.rows[0];
  const middleCursor = encodeFeedCursor({
    workspaceId: writes.id,
    after: middle ?? '0',
    types: null,
    limit: 100,
    readAt: Date.now(),
  });
  await serviceAlone(
    db,
    service,
    chosen([
      { name: 'custom item title[startsWith]=Item 9999', load: item(filter('title[startsWith]', 'Item 9999')) },
      {
        name: 'custom item size[greaterThan]=99000',
        load: item(filter('size[greaterThan]', String(CUSTOM_RECORDS - 1000))),
      },
      { name: 'custom item tier=tier7 (2% of them)', load: item(filter('tier', 'tier7')) },
      {
        name: `list members, offset=${LIST_MEMBERS / 2} of ${count(LIST_MEMBERS)}`,
        load: { workspace: custom, paths: [`/v1/lists/${custom.listId}/accounts?offset=${LIST_MEMBERS / 2}`] },
      },
      { name: `meetings (${count(MEETINGS)}, mixed privacy)`, load: { workspace: meetings, paths: ['/v1/meetings'] } },
      {
        name: 'meetings $title=Meeting 4000',
        load: { workspace: meetings, paths: [`/v1/meetings?${filter('$title', 'Meeting 4000')}`] },
      },
      {
        name: `event feed, first page of 100 (of ${count(eventCount)})`,
        load: { workspace: writes, paths: ['/v1/events?limit=100'] },
      },
      {
        name: 'event feed, page of 100 at the middle',
        load: { workspace: writes, paths: [`/v1/events?cursor=${middleCursor}`] },
      },
    ]),
  );

  const scaleBudgets = await atScale(db, service, big, small);
  const batchBudgets = 'batch writes'.includes(ONLY) ? await batchWriteBudgets(db, database.url, service) : [];
  const searchBudgets = chosen([{ name: 'search' }]).length ? await searchAtScale(db, service) : [];

  const budgets: Budget[] = [
    ...[...results].flatMap(([{ name, ratioGoal, expressNodeGoal }, runs]) => {
      const service = runs.get('service')!;
      return [
        ...(expressNodeGoal === undefined
          ? []
          : [
              {
                goal: `${name}: node CPU per request vs bare Express's`,
                measured: service.nodeMs / runs.get('express')!.nodeMs,
                target: expressNodeGoal,
                atLeast: false,
              },
            ]),
        ...(ratioGoal === undefined
          ? []
          : [
              {
                goal: `${name}: req/s vs bare node:http`,
                measured: service.perSecond / runs.get('node:http')!.perSecond,
                target: ratioGoal,
                atLeast: true,
              },
            ]),
      ];
    }),
    ...eventBudgets,
    ...syncBudgets,
    ...scaleBudgets,
    ...batchBudgets,
    ...searchBudgets,
  ];
  console.log('\nbudgets (the performance goal)');
  printBudgets(budgets);
  await db.end();
});

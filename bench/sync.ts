/**
 * The sync section of `npm run bench` (issue 39's budgets, CPU per unit of work): what webhooks
 * and feed consumers cost, in the topology the README prescribes under load: the API in a
 * `ROLES=api` process, the queue in a `ROLES=worker` process of its own (which connects as a
 * PostgreSQL user of its own, so that pg_stat_statements tells the write path's statements from
 * the deliveries'). Alone: `npm run build && node dist/bench/sync.js` (BENCH_ONLY, BENCH_SECONDS
 * and BENCH_ROUNDS as in run.ts). On two shared cores throughput says who got the CPU; CPU per
 * create, per event, per attempt and per poll does not, and those are the budgets.
 *
 *  - Fan-out: creates (16 connections) in workspaces with 1, 10 and 100 endpoints subscribed to
 *    every event, against creates in one with none, arms alternated; receivers on loopback answer
 *    at once. Then every event must reach every endpoint. Per arm, what a create cost the API
 *    process (node CPU and its PostgreSQL backends' CPU, against the arm with none), and what the
 *    worker (node and its backends) spent per attempt: with 1 endpoint, an event's fixed part and
 *    one attempt; with 100, the attempt's marginal cost.
 *  - Backlog: 10,000 attempts due at once to a receiver answering at once, one worker: how long.
 *  - Feed consumers: creates while 10 consumers poll `GET /v1/events` of the same workspace on a
 *    second API instance without pause (each following its own cursor chain), against creates with
 *    none, and the consumers polling a workspace nobody writes to; no poll may answer 409 or 5xx.
 *    What a poll cost that instance and its PostgreSQL backends, empty and while writes run.
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import {
  BackendCpu,
  backendCpuBetween,
  backendCpuByBackend,
  BENCH_SERVICE_ENV,
  BenchServer,
  Budget,
  BenchWorkspace,
  cpuSeconds,
  printBudgets,
  printTable,
  runBench,
  seedWorkspace,
  startBenchDatabase,
  startService,
} from './support';

const CREATE_CONNECTIONS = 16;
const POLLERS = 10;
const ENDPOINT_COUNTS = [1, 10, 100];
/** How long the deliveries may take once the creates stopped before the bench counts the missing ones. */
const DELIVERY_WAIT_MS = 300_000;

/** The PostgreSQL user the worker connects as: its statements are told from the API's by it. */
const WORKER_USER = 'records_bench_worker';

/**
 * The API (`ROLES=api`) and the worker (`ROLES=worker`), each a process of the built service, and
 * a second API instance that the feed's consumers read from (scaled out as the README prescribes),
 * so that what their polls cost is measured as its CPU rather than inferred from the writer's.
 */
export interface SyncTopology {
  api: BenchServer;
  worker: BenchServer;
  feed: BenchServer;
}

/**
 * Starts the worker as a process of its own, connected as WORKER_USER, and the feed's instance;
 * with `api` given (the bench's `ROLES=api` service), that is the API, else one is started too.
 * `env` is given to each.
 */
export async function startSyncTopology(
  folder: string,
  db: Client,
  databaseUrl: string,
  env: Record<string, string>,
  api?: BenchServer,
): Promise<SyncTopology> {
  const password = randomBytes(16).toString('hex');
  await db.query(`CREATE ROLE ${WORKER_USER} LOGIN SUPERUSER PASSWORD '${password}'`);
  const workerUrl = new URL(databaseUrl);
  workerUrl.username = WORKER_USER;
  workerUrl.password = password;
  return {
    api: api ?? (await startService(folder, databaseUrl, { ...env, ROLES: 'api' })),
    worker: await startService(folder, workerUrl.toString(), { ...env, ROLES: 'worker' }),
    feed: await startService(folder, databaseUrl, { ...env, ROLES: 'api' }),
  };
}

/** What the processes spent: CPU seconds, and the API's statements (pg_stat_statements, since its last reset). */
interface Spent {
  apiNode: number;
  apiPostgres: number;
  workerNode: number;
  workerPostgres: number;
  feedNode: number;
  feedPostgres: number;
  apiStatements: number;
}

/** What the processes had spent at one moment. */
interface Look {
  apiNode: number;
  workerNode: number;
  feedNode: number;
  backends: Map<number, BackendCpu>;
  apiStatements: number;
}

async function look(db: Client, topology: SyncTopology): Promise<Look> {
  const backends = await backendCpuByBackend(db);
  const { rows } = await db.query<{ calls: number }>(
    `SELECT coalesce(sum(calls), 0)::int AS calls FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
      WHERE r.rolname <> $1 AND s.query !~ 'pg_stat|pg_roles'`,
    [WORKER_USER],
  );
  return {
    apiNode: cpuSeconds(topology.api.pid),
    workerNode: cpuSeconds(topology.worker.pid),
    feedNode: cpuSeconds(topology.feed.pid),
    backends,
    apiStatements: rows[0].calls,
  };
}

function spentBetween(topology: SyncTopology, before: Look, after: Look): Spent {
  const postgres = backendCpuBetween(before.backends, after.backends);
  return {
    apiNode: after.apiNode - before.apiNode,
    apiPostgres: postgres.get(topology.api.pid) ?? 0,
    workerNode: after.workerNode - before.workerNode,
    workerPostgres: postgres.get(topology.worker.pid) ?? 0,
    feedNode: after.feedNode - before.feedNode,
    feedPostgres: postgres.get(topology.feed.pid) ?? 0,
    apiStatements: after.apiStatements - before.apiStatements,
  };
}

/**
 * Runs `work` and answers what the processes spent meanwhile, until the API's requests in flight
 * when it ended have ended (0.2 s); `db`, the bench's connection, must stay idle meanwhile.
 */
async function metered<T>(
  db: Client,
  topology: SyncTopology,
  work: () => Promise<T>,
): Promise<{ result: T; cost: Spent }> {
  await db.query('SELECT pg_stat_statements_reset()');
  const before = await look(db, topology);
  const result = await work();
  await sleep(200);
  return { result, cost: spentBetween(topology, before, await look(db, topology)) };
}

const SHOW_STATEMENTS = process.env.BENCH_STATEMENTS === '1';

/**
 * With BENCH_STATEMENTS=1, the statements since the last reset (metered's), most time first, by
 * the API's and by the worker's user: calls and ms of execution per `unit` (`count` of them).
 */
async function printStatements(db: Client, title: string, unit: string, count: number): Promise<void> {
  if (!SHOW_STATEMENTS) return;
  const { rows } = await db.query<{ worker: boolean; calls: number; milliseconds: number; query: string }>(
    `SELECT r.rolname = $1 AS worker, calls::int, total_exec_time + total_plan_time AS milliseconds, query
       FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
      WHERE s.query !~ 'pg_stat|pg_roles' ORDER BY total_exec_time + total_plan_time DESC LIMIT 25`,
    [WORKER_USER],
  );
  console.log(`\n  ${title}: per ${unit}, calls and ms executing and planning; whose; the statement`);
  for (const { worker, calls, milliseconds, query } of rows) {
    console.log(
      `  ${(calls / count).toFixed(3).padStart(8)} ${(milliseconds / count).toFixed(3).padStart(8)}  ${worker ? 'worker' : 'api   '}  ${query.replace(/\s+/g, ' ').slice(0, 140)}`,
    );
  }
}

/** The creates of one arm, added up over its runs, with what they cost. */
class CreateRuns {
  requests = 0;
  /** The answered and those in flight when a run stopped, whose work the costs include. */
  sent = 0;
  seconds = 0;
  failed = 0;
  cost: Spent = {
    apiNode: 0,
    apiPostgres: 0,
    workerNode: 0,
    workerPostgres: 0,
    feedNode: 0,
    feedPostgres: 0,
    apiStatements: 0,
  };
  private readonly p99s: number[] = [];

  add({ result, cost }: { result: autocannon.Result; cost: Spent }): void {
    this.requests += result.requests.total;
    this.sent += result.requests.sent;
    this.seconds += result.duration;
    this.failed += result.non2xx + result.errors;
    this.p99s.push(result.latency.p99);
    for (const key of Object.keys(cost) as (keyof Spent)[]) this.cost[key] += cost[key];
  }

  get perSecond(): number {
    return this.requests / this.seconds;
  }
  get p99(): number {
    return this.p99s.reduce((sum, value) => sum + value, 0) / this.p99s.length;
  }
  /** Milliseconds of `key` per create sent. */
  msPerCreate(key: keyof Spent): number {
    return (this.cost[key] * 1000) / this.sent;
  }
  get statementsPerCreate(): number {
    return this.cost.apiStatements / this.sent;
  }
}

function createNotes(server: BenchServer, workspace: BenchWorkspace, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `http://127.0.0.1:${server.port}/v1/notes`,
    connections: CREATE_CONNECTIONS,
    duration: seconds,
    timeout: 60,
    method: 'POST',
    headers: {
      authorization: `Bearer ${workspace.key}`,
      'service-version': '2026-03-01',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ fields: { $title: 'Bench note', $content: 'Written by the bench' } }),
  });
}

/** A receiver on loopback answering 204 at once; counts each (endpoint, event) it was sent once. */
async function startReceiver(): Promise<{ server: Server; port: number; delivered: Set<string> }> {
  const delivered = new Set<string>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      delivered.add(`${request.url} ${String(request.headers['webhook-id'])}`);
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, delivered };
}

/** `count` endpoints of `workspace`, subscribed to every event, each at its own path of the receiver. */
async function subscribe(db: Client, workspace: BenchWorkspace, port: number, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const id = newId('webhook');
    await db.query(
      `INSERT INTO webhook_endpoints (id, workspace_id, member_id, api_key_id, url, event_types, status, secret, created_at, updated_at)
       SELECT $1, $2, $3, k.id, $4, '{*}', 'ENABLED', $5, now(), now() FROM api_keys k WHERE k.workspace_id = $2`,
      [
        id,
        workspace.id,
        workspace.memberId,
        `http://127.0.0.1:${port}/hooks/${id}`,
        `whsec_${randomBytes(32).toString('base64')}`,
      ],
    );
  }
}

async function eventsOf(db: Client, workspace: BenchWorkspace): Promise<number> {
  const { rows } = await db.query<{ events: number }>(
    `SELECT count(*)::int AS events FROM events WHERE workspace_id = $1`,
    [workspace.id],
  );
  return rows[0].events;
}

const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** Fan-out: creates with 1, 10 and 100 subscribed endpoints against none, then every delivery. */
export async function fanOutCost(
  db: Client,
  topology: SyncTopology,
  seconds: number,
  rounds: number,
): Promise<Budget[]> {
  console.log(
    `\nwebhook fan-out: creates (${CREATE_CONNECTIONS} connections) with ${ENDPOINT_COUNTS.join(', ')} subscribed endpoints vs none, ` +
      `${rounds} rounds of ${seconds} s; the API (ROLES=api) and the worker (ROLES=worker) in processes of their own`,
  );
  const receiver = await startReceiver();
  const arms = [0, ...ENDPOINT_COUNTS].map((endpoints) => ({
    endpoints,
    runs: new CreateRuns(),
    workspace: undefined as unknown as BenchWorkspace,
    deliveries: { made: 0, duringRun: 0, afterSeconds: 0, workerNode: 0, workerPostgres: 0 },
  }));
  for (const arm of arms) {
    arm.workspace = await seedWorkspace(db, `bench fan-out ${arm.endpoints}`);
    await subscribe(db, arm.workspace, receiver.port, arm.endpoints);
  }
  for (const arm of arms) await createNotes(topology.api, arm.workspace, 1);
  /** Every event of the arms so far × its endpoints: what the receiver must have had. */
  const expectedNow = async () => {
    let expected = 0;
    for (const arm of arms) expected += (await eventsOf(db, arm.workspace)) * arm.endpoints;
    return expected;
  };
  // Each arm's deliveries are awaited before the next arm runs: an arm pays for its own, and none for another's.
  // What is expected is counted again as it goes: the creates in flight when a run stopped commit after it.
  const drain = async () => {
    const deadline = Date.now() + DELIVERY_WAIT_MS;
    while (receiver.delivered.size < (await expectedNow()) && Date.now() < deadline) await sleep(100);
  };
  await drain();
  for (let round = 0; round < rounds; round += 1) {
    for (const arm of arms) {
      const before = receiver.delivered.size;
      const workerBefore = await look(db, topology);
      arm.runs.add(await metered(db, topology, () => createNotes(topology.api, arm.workspace, seconds)));
      const stopped = Date.now();
      const duringRun = receiver.delivered.size - before;
      await drain();
      const worker = spentBetween(topology, workerBefore, await look(db, topology));
      arm.deliveries.made += receiver.delivered.size - before;
      arm.deliveries.duringRun += duringRun;
      arm.deliveries.afterSeconds += (Date.now() - stopped) / 1000;
      arm.deliveries.workerNode += worker.workerNode;
      arm.deliveries.workerPostgres += worker.workerPostgres;
      await printStatements(db, `${arm.endpoints} endpoints, the run and its deliveries`, 'create', arm.runs.sent);
    }
  }
  const expected = await expectedNow();
  receiver.server.close();
  receiver.server.closeAllConnections();

  const none = arms[0].runs;
  console.log("\ncreates, and what each cost the API: its node CPU, its PostgreSQL backends' CPU (ms) and statements");
  printTable(
    [
      'endpoints',
      'creates/s',
      'ratio',
      'p99',
      'p99 ratio',
      'failed',
      'API node ms',
      'API pg ms',
      'statements',
      'worker node+pg ms',
    ],
    arms.map(({ endpoints, runs }) => [
      endpoints,
      count(runs.perSecond),
      fixed(runs.perSecond / none.perSecond),
      runs.p99,
      fixed(runs.p99 / Math.max(none.p99, 1)),
      runs.failed,
      fixed(runs.msPerCreate('apiNode')),
      fixed(runs.msPerCreate('apiPostgres')),
      fixed(runs.statementsPerCreate),
      fixed(runs.msPerCreate('workerNode') + runs.msPerCreate('workerPostgres')),
    ]),
  );
  console.log(
    '\ndeliveries of the runs: made during them, the rest after them (and their pace), and what each cost the worker (ms of CPU)',
  );
  printTable(
    ['endpoints', 'attempts', 'during the runs', 'after, s', 'after, per second', 'worker node ms', 'worker pg ms'],
    arms
      .slice(1)
      .map(({ endpoints, deliveries }) => [
        endpoints,
        count(deliveries.made),
        count(deliveries.duringRun),
        fixed(deliveries.afterSeconds, 1),
        count((deliveries.made - deliveries.duringRun) / Math.max(deliveries.afterSeconds, 0.001)),
        fixed((deliveries.workerNode * 1000) / Math.max(deliveries.made, 1), 3),
        fixed((deliveries.workerPostgres * 1000) / Math.max(deliveries.made, 1), 3),
      ]),
  );
  console.log(`deliveries: ${count(receiver.delivered.size)} of ${count(expected)} (every event × its endpoints)`);
  const noneCost = none.msPerCreate('apiNode') + none.msPerCreate('apiPostgres');
  /** What the worker (node and its backends) spent per attempt of the arm with `endpoints`, in ms. */
  const workerPerAttempt = (endpoints: number) => {
    const { deliveries } = arms.find((arm) => arm.endpoints === endpoints)!;
    return ((deliveries.workerNode + deliveries.workerPostgres) * 1000) / Math.max(deliveries.made, 1);
  };
  // With one endpoint an event is one attempt: its cost is the event's fixed part and one attempt's marginal one.
  const marginal = workerPerAttempt(Math.max(...ENDPOINT_COUNTS));
  const fixedPerEvent = workerPerAttempt(1) - marginal;
  console.log(
    `worker CPU (node + PostgreSQL) per event, its fixed part: ${fixed(fixedPerEvent, 3)} ms; per attempt, marginal: ${fixed(marginal, 3)} ms`,
  );
  return [
    ...arms.slice(1).map(({ endpoints, runs }) => ({
      goal: `API + PostgreSQL CPU per create with ${endpoints} subscribed endpoint${endpoints === 1 ? '' : 's'} vs none`,
      measured: (runs.msPerCreate('apiNode') + runs.msPerCreate('apiPostgres')) / noneCost,
      target: 1.1,
      atLeast: false,
    })),
    { goal: 'worker CPU per delivered event, fixed part, ms', measured: fixedPerEvent, target: 0.5, atLeast: false },
    {
      goal: `worker CPU per delivery attempt, marginal (${Math.max(...ENDPOINT_COUNTS)} endpoints), ms`,
      measured: marginal,
      target: 0.25,
      atLeast: false,
    },
    {
      goal: 'webhooks: every event delivered to every endpoint, missing',
      measured: Math.max(0, expected - receiver.delivered.size),
      target: 0,
      atLeast: false,
    },
  ];
}

const WAKES = 20;

/**
 * Long polls woken by an append of another instance's (the bench's own session appends and
 * notifies as an instance does): from the commit to the waiting read's answer, WAKES times.
 */
export async function longPollWake(db: Client, topology: SyncTopology): Promise<Budget[]> {
  console.log(`
long polls: a read waiting (wait=30) woken by another instance's append, ${WAKES} times`);
  const workspace = await seedWorkspace(db, 'bench long polls');
  const headers = { authorization: `Bearer ${workspace.key}`, 'service-version': '2026-03-01' };
  const latencies: number[] = [];
  let cursor = await feedEnd(topology.api, workspace);
  for (let index = 0; index < WAKES; index += 1) {
    const answered = fetch(`http://127.0.0.1:${topology.api.port}/v1/events?cursor=${cursor}&wait=30`, {
      headers,
    }).then(async (response) => ({
      at: performance.now(),
      body: (await response.json()) as { data: unknown[]; nextCursor: string },
    }));
    await sleep(100);
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data)
       VALUES (nextval('event_positions'), $2, $1, 'note.created', 'note', $3, now(), '{}')`,
      [workspace.id, newId('event'), newId('note')],
    );
    await db.query(`SELECT pg_notify('events_appended', $1)`, [workspace.id]);
    await db.query('COMMIT');
    const committed = performance.now();
    const { at, body } = await answered;
    if (body.data.length !== 1) throw new Error(`a woken long poll answered ${body.data.length} events`);
    latencies.push(at - committed);
    cursor = body.nextCursor;
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)];
  console.log(`from the commit to the answer: p50 ${fixed(p50, 1)} ms, max ${fixed(sorted[sorted.length - 1], 1)} ms`);
  return [
    { goal: 'a long poll woken by another instance’s commit, p50 ms', measured: p50, target: 50, atLeast: false },
  ];
}

const BACKLOG_WRITES = 100;
const BACKLOG_ENDPOINTS = 100;

/**
 * A backlog of BACKLOG_WRITES × BACKLOG_ENDPOINTS attempts to a receiver that answers at once,
 * all due at one moment (the outbox's rows of writes made while no endpoint was subscribed yet,
 * made due together, as after a worker outage): how long the one worker takes to deliver them.
 */
export async function backlogDrain(db: Client): Promise<Budget[]> {
  const attempts = BACKLOG_WRITES * BACKLOG_ENDPOINTS;
  console.log(`
webhook backlog: ${count(attempts)} attempts due at once, one worker, a receiver answering at once`);
  const receiver = await startReceiver();
  const workspace = await seedWorkspace(db, 'bench backlog');
  const { rows: events } = await db.query<{ id: string }>(
    `INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data)
     SELECT nextval('event_positions'), 'evt_bench_backlog_' || n, $1, 'note.created', 'note', 'note_bench_backlog_' || n, now(), '{}'
       FROM generate_series(1, $2) n RETURNING id`,
    [workspace.id, BACKLOG_WRITES],
  );
  await subscribe(db, workspace, receiver.port, BACKLOG_ENDPOINTS);
  const started = Date.now();
  await db.query(
    `INSERT INTO webhook_outbox (workspace_id, event_ids, types, written_at, due_at)
     SELECT $1, ARRAY[id], '{note.created}', now(), now() FROM unnest($2::text[]) id`,
    [workspace.id, events.map((event) => event.id)],
  );
  const deadline = started + DELIVERY_WAIT_MS;
  while (receiver.delivered.size < attempts && Date.now() < deadline) await sleep(20);
  const seconds = (Date.now() - started) / 1000;
  receiver.server.close();
  receiver.server.closeAllConnections();
  console.log(`delivered ${count(receiver.delivered.size)} of ${count(attempts)} in ${fixed(seconds, 2)} s`);
  return [
    {
      goal: `a ${count(attempts)}-attempt backlog cleared by one worker, s`,
      measured: seconds,
      target: 5,
      atLeast: false,
    },
  ];
}

/** The nextCursor of the feed's end: a consumer that caught up polls from there. */
async function feedEnd(service: BenchServer, workspace: BenchWorkspace): Promise<string> {
  const headers = { authorization: `Bearer ${workspace.key}`, 'service-version': '2026-03-01' };
  let query = 'limit=100';
  for (;;) {
    const body = (await (await fetch(`http://127.0.0.1:${service.port}/v1/events?${query}`, { headers })).json()) as {
      data: unknown[];
      nextCursor: string;
    };
    query = `cursor=${body.nextCursor}`;
    if (body.data.length < 100) return body.nextCursor;
  }
}

/**
 * One consumer that caught up (from `cursor`) polling the feed without pause until `stop`, each
 * poll reading what was written since the one before; counts its polls and those that failed.
 */
async function poll(
  service: BenchServer,
  workspace: BenchWorkspace,
  cursor: string,
  stop: () => boolean,
): Promise<{ polls: number; failed: Map<number, number> }> {
  const headers = { authorization: `Bearer ${workspace.key}`, 'service-version': '2026-03-01' };
  const failed = new Map<number, number>();
  let polls = 0;
  let query = `cursor=${cursor}`;
  while (!stop()) {
    const response = await fetch(`http://127.0.0.1:${service.port}/v1/events?${query}`, { headers });
    const body = (await response.json()) as { nextCursor?: string };
    polls += 1;
    if (response.status === 409 || response.status >= 500)
      failed.set(response.status, (failed.get(response.status) ?? 0) + 1);
    if (response.ok && body.nextCursor) query = `cursor=${body.nextCursor}`;
  }
  return { polls, failed };
}

/**
 * Feed consumers: creates on the API while 10 consumers poll the workspace's feed on the feed's
 * instance, against creates alone; then the consumers polling a workspace nobody writes to. A
 * poll's cost is the feed instance's CPU (node and its PostgreSQL backends) over the polls.
 */
export async function pollerCost(
  db: Client,
  topology: SyncTopology,
  seconds: number,
  rounds: number,
): Promise<Budget[]> {
  const { api, feed } = topology;
  console.log(
    `\nfeed consumers: creates (${CREATE_CONNECTIONS} connections) while ${POLLERS} consumers poll /v1/events of another instance without pause vs none, ${rounds} rounds of ${seconds} s`,
  );
  const workspace = await seedWorkspace(db, 'bench feed consumers');
  await createNotes(api, workspace, 1);
  const alone = new CreateRuns();
  const polled = new CreateRuns();
  const failed = new Map<number, number>();
  const consume = (end: string, stop: () => boolean) =>
    Promise.all(Array.from({ length: POLLERS }, () => poll(feed, workspace, end, stop))).then((consumers) => {
      let polls = 0;
      for (const consumer of consumers) {
        polls += consumer.polls;
        for (const [status, times] of consumer.failed) failed.set(status, (failed.get(status) ?? 0) + times);
      }
      return polls;
    });
  let busyPolls = 0;
  for (let round = 0; round < rounds; round += 1) {
    alone.add(await metered(db, topology, () => createNotes(api, workspace, seconds)));
    let stopping = false;
    const consumers = consume(await feedEnd(feed, workspace), () => stopping);
    let roundPolls = 0;
    polled.add(
      await metered(db, topology, async () => {
        const creates = await createNotes(api, workspace, seconds);
        stopping = true;
        roundPolls = await consumers;
        return creates;
      }),
    );
    busyPolls += roundPolls;
    await printStatements(db, 'creates with consumers polling', 'poll', roundPolls);
  }
  // Caught-up consumers of a workspace nobody writes to: what an empty poll costs.
  let idlePolls = 0;
  let idleCost = 0;
  for (let round = 0; round < rounds; round += 1) {
    let stopping = false;
    const consumers = consume(await feedEnd(feed, workspace), () => stopping);
    const { cost } = await metered(db, topology, async () => {
      await sleep(seconds * 1000);
      stopping = true;
      idlePolls += await consumers;
    });
    idleCost += cost.feedNode + cost.feedPostgres;
  }
  const perPoll = (runs: CreateRuns, key: 'feedNode' | 'feedPostgres', polls: number) =>
    (runs.cost[key] * 1000) / Math.max(polls, 1);
  const perIdlePoll = (idleCost * 1000) / Math.max(idlePolls, 1);
  const perBusyPoll = perPoll(polled, 'feedNode', busyPolls) + perPoll(polled, 'feedPostgres', busyPolls);
  console.log(
    `empty polls (no writes): ${count(idlePolls)} (${count(idlePolls / (rounds * seconds))} per second), each ${fixed(perIdlePoll, 3)} ms of node + PostgreSQL CPU`,
  );
  const failures = [...failed.values()].reduce((sum, times) => sum + times, 0);
  console.log("\nper create: the API's node CPU and its PostgreSQL backends' CPU (ms), with the polls when they ran");
  printTable(
    ['creates', 'req/s', 'p99', 'failed', 'API node ms', 'API pg ms'],
    (
      [
        ['alone', alone],
        [`with ${POLLERS} consumers`, polled],
      ] as const
    ).map(([arm, runs]) => [
      arm,
      count(runs.perSecond),
      runs.p99,
      runs.failed,
      fixed(runs.msPerCreate('apiNode')),
      fixed(runs.msPerCreate('apiPostgres')),
    ]),
  );
  console.log(
    `polls while writes run: ${count(busyPolls)} (${count(busyPolls / (rounds * seconds))} per second), each ${fixed(perPoll(polled, 'feedNode', busyPolls))} ms of the feed instance's node CPU and ` +
      `${fixed(perPoll(polled, 'feedPostgres', busyPolls))} ms of its PostgreSQL backends'; 409 or 5xx: ${failures}` +
      (failures ? ` (${[...failed].map(([status, times]) => `${times} × ${status}`).join(', ')})` : ''),
  );
  return [
    {
      goal: 'API + PostgreSQL CPU per empty poll (caught up, no writes), ms',
      measured: perIdlePoll,
      target: 0.5,
      atLeast: false,
    },
    { goal: 'API + PostgreSQL CPU per poll while writes run, ms', measured: perBusyPoll, target: 1.0, atLeast: false },
    { goal: 'feed consumers: polls answered 409 or 5xx', measured: failures, target: 0, atLeast: false },
  ];
}

if (require.main === module) {
  runBench(async (folder) => {
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
    const only = process.env.BENCH_ONLY ?? '';
    const database = await startBenchDatabase(folder);
    const db = new Client({ connectionString: database.url });
    await db.connect();
    const topology = await startSyncTopology(folder, db, database.url, BENCH_SERVICE_ENV);
    const budgets = [
      ...('webhook fan-out'.includes(only) ? await fanOutCost(db, topology, seconds, rounds) : []),
      ...('webhook backlog'.includes(only) ? await backlogDrain(db) : []),
      ...('feed consumers'.includes(only) ? await pollerCost(db, topology, seconds, rounds) : []),
      ...('long polls'.includes(only) ? await longPollWake(db, topology) : []),
    ];
    console.log('\nbudgets (issue 39)');
    printBudgets(budgets);
    await db.end();
  });
}

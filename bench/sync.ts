/**
 * The sync section of `npm run bench` (issue 28's budgets): what webhooks and feed consumers cost
 * the writes of a workspace.
 *
 *  - Fan-out: creates (16 connections) in workspaces with 1, 10 and 100 endpoints subscribed to
 *    every event, against creates in one with none, arms alternated; receivers on loopback answer
 *    at once. Then every event must reach every endpoint: the time the deliveries took after the
 *    creates stopped, and their pace at the receiver.
 *  - Feed consumers: creates while 10 consumers poll `GET /v1/events` of the same workspace without
 *    pause (each following its own cursor chain), against creates with none; no poll may answer
 *    409 or 5xx.
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import { BenchServer, BenchWorkspace, printTable, seedWorkspace } from './support';

const CREATE_CONNECTIONS = 16;
const POLLERS = 10;
const ENDPOINT_COUNTS = [1, 10, 100];
/** How long the deliveries may take once the creates stopped before the bench counts the missing ones. */
const DELIVERY_WAIT_MS = 300_000;

export interface SyncBudget {
  goal: string;
  measured: number;
  target: number;
  atLeast: boolean;
}

/** The creates of one arm, added up over its runs. */
class CreateRuns {
  requests = 0;
  seconds = 0;
  failed = 0;
  private readonly p99s: number[] = [];

  add(result: autocannon.Result): void {
    this.requests += result.requests.total;
    this.seconds += result.duration;
    this.failed += result.non2xx + result.errors;
    this.p99s.push(result.latency.p99);
  }

  get perSecond(): number {
    return this.requests / this.seconds;
  }
  get p99(): number {
    return this.p99s.reduce((sum, value) => sum + value, 0) / this.p99s.length;
  }
}

function createNotes(server: BenchServer, workspace: BenchWorkspace, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: `http://127.0.0.1:${server.port}/v1/notes`,
    connections: CREATE_CONNECTIONS,
    duration: seconds,
    timeout: 60,
    method: 'POST',
    headers: { authorization: `Bearer ${workspace.key}`, 'service-version': '2026-03-01', 'content-type': 'application/json' },
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
      [id, workspace.id, workspace.memberId, `http://127.0.0.1:${port}/hooks/${id}`, `whsec_${randomBytes(32).toString('base64')}`],
    );
  }
}

async function eventsOf(db: Client, workspace: BenchWorkspace): Promise<number> {
  const { rows } = await db.query<{ events: number }>(`SELECT count(*)::int AS events FROM events WHERE workspace_id = $1`, [workspace.id]);
  return rows[0].events;
}

const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** Fan-out: creates with 1, 10 and 100 subscribed endpoints against none, then every delivery. */
export async function fanOutCost(db: Client, service: BenchServer, seconds: number, rounds: number): Promise<SyncBudget[]> {
  console.log(`\nwebhook fan-out: creates (${CREATE_CONNECTIONS} connections) with ${ENDPOINT_COUNTS.join(', ')} subscribed endpoints vs none, ${rounds} rounds of ${seconds} s`);
  const receiver = await startReceiver();
  const arms = [0, ...ENDPOINT_COUNTS].map((endpoints) => ({ endpoints, runs: new CreateRuns(), workspace: undefined as unknown as BenchWorkspace }));
  for (const arm of arms) {
    arm.workspace = await seedWorkspace(db, `bench fan-out ${arm.endpoints}`);
    await subscribe(db, arm.workspace, receiver.port, arm.endpoints);
  }
  for (const arm of arms) await createNotes(service, arm.workspace, 1);
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
    while (receiver.delivered.size < (await expectedNow()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  };
  await drain();
  const drains: { endpoints: number; attempts: number; duringRun: number; seconds: number }[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const arm of arms) {
      const before = receiver.delivered.size;
      arm.runs.add(await createNotes(service, arm.workspace, seconds));
      const stopped = Date.now();
      const duringRun = receiver.delivered.size - before;
      await drain();
      if (arm.endpoints > 0) drains.push({ endpoints: arm.endpoints, attempts: receiver.delivered.size - before, duringRun, seconds: (Date.now() - stopped) / 1000 });
    }
  }
  const expected = await expectedNow();
  receiver.server.close();
  receiver.server.closeAllConnections();

  const none = arms[0].runs;
  printTable(
    ['endpoints', 'creates/s', 'ratio', 'p99', 'p99 ratio', 'failed'],
    arms.map((arm) => [
      arm.endpoints,
      count(arm.runs.perSecond),
      fixed(arm.runs.perSecond / none.perSecond),
      arm.runs.p99,
      fixed(arm.runs.p99 / Math.max(none.p99, 1)),
      arm.runs.failed,
    ]),
  );
  console.log('\ndeliveries of each run: made during it, then the rest after it, and their pace once the creates stopped');
  printTable(
    ['endpoints', 'attempts', 'during the run', 'after, s', 'after, per second'],
    drains.map((drain) => [
      drain.endpoints,
      count(drain.attempts),
      count(drain.duringRun),
      fixed(drain.seconds, 1),
      count((drain.attempts - drain.duringRun) / Math.max(drain.seconds, 0.001)),
    ]),
  );
  console.log(`deliveries: ${count(receiver.delivered.size)} of ${count(expected)} (every event × its endpoints)`);
  return [
    ...arms.slice(1).map((arm) => ({
      goal: `creates with ${arm.endpoints} subscribed endpoint${arm.endpoints === 1 ? '' : 's'}: req/s vs none`,
      measured: arm.runs.perSecond / none.perSecond,
      target: 0.85,
      atLeast: true,
    })),
    { goal: 'webhooks: every event delivered to every endpoint, missing', measured: Math.max(0, expected - receiver.delivered.size), target: 0, atLeast: false },
  ];
}

/** The nextCursor of the feed's end: a consumer that caught up polls from there. */
async function feedEnd(service: BenchServer, workspace: BenchWorkspace): Promise<string> {
  const headers = { authorization: `Bearer ${workspace.key}`, 'service-version': '2026-03-01' };
  let query = 'limit=100';
  for (;;) {
    const body = (await (await fetch(`http://127.0.0.1:${service.port}/v1/events?${query}`, { headers })).json()) as { data: unknown[]; nextCursor: string };
    query = `cursor=${body.nextCursor}`;
    if (body.data.length < 100) return body.nextCursor;
  }
}

/**
 * One consumer that caught up (from `cursor`) polling the feed without pause until `stop`, each
 * poll reading what was written since the one before; counts its polls and those that failed.
 */
async function poll(service: BenchServer, workspace: BenchWorkspace, cursor: string, stop: () => boolean): Promise<{ polls: number; failed: Map<number, number> }> {
  const headers = { authorization: `Bearer ${workspace.key}`, 'service-version': '2026-03-01' };
  const failed = new Map<number, number>();
  let polls = 0;
  let query = `cursor=${cursor}`;
  while (!stop()) {
    const response = await fetch(`http://127.0.0.1:${service.port}/v1/events?${query}`, { headers });
    const body = (await response.json()) as { nextCursor?: string };
    polls += 1;
    if (response.status === 409 || response.status >= 500) failed.set(response.status, (failed.get(response.status) ?? 0) + 1);
    if (response.ok && body.nextCursor) query = `cursor=${body.nextCursor}`;
  }
  return { polls, failed };
}

/** Feed consumers: creates while 10 consumers poll the workspace's feed, against creates alone. */
export async function pollerCost(db: Client, service: BenchServer, seconds: number, rounds: number): Promise<SyncBudget[]> {
  console.log(`\nfeed consumers: creates (${CREATE_CONNECTIONS} connections) while ${POLLERS} consumers poll /v1/events without pause vs none, ${rounds} rounds of ${seconds} s`);
  const workspace = await seedWorkspace(db, 'bench feed consumers');
  await createNotes(service, workspace, 1);
  const alone = new CreateRuns();
  const polled = new CreateRuns();
  let polls = 0;
  const failed = new Map<number, number>();
  for (let round = 0; round < rounds; round += 1) {
    alone.add(await createNotes(service, workspace, seconds));
    let stopping = false;
    const end = await feedEnd(service, workspace);
    const consumers = Promise.all(Array.from({ length: POLLERS }, () => poll(service, workspace, end, () => stopping)));
    polled.add(await createNotes(service, workspace, seconds));
    stopping = true;
    for (const consumer of await consumers) {
      polls += consumer.polls;
      for (const [status, times] of consumer.failed) failed.set(status, (failed.get(status) ?? 0) + times);
    }
  }
  const failures = [...failed.values()].reduce((sum, times) => sum + times, 0);
  printTable(
    ['creates', 'req/s', 'p99', 'failed'],
    [
      ['alone', count(alone.perSecond), alone.p99, alone.failed],
      [`with ${POLLERS} consumers`, count(polled.perSecond), polled.p99, polled.failed],
    ],
  );
  console.log(
    `polls: ${count(polls)} (${count(polls / (rounds * seconds))} per second), 409 or 5xx: ${failures}` +
      (failures ? ` (${[...failed].map(([status, times]) => `${times} × ${status}`).join(', ')})` : ''),
  );
  return [
    { goal: `creates with ${POLLERS} feed consumers: req/s vs none`, measured: polled.perSecond / alone.perSecond, target: 0.9, atLeast: true },
    { goal: `creates with ${POLLERS} feed consumers: p99 vs none`, measured: polled.p99 / Math.max(alone.p99, 1), target: 1.5, atLeast: false },
    { goal: 'feed consumers: polls answered 409 or 5xx', measured: failures, target: 0, atLeast: false },
  ];
}

import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { toApiError } from '../../src/common/errors/to-api-error';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { WorkspaceEntity } from '../../src/database/entities/workspace.entity';
import { Transactions } from '../../src/database/transactions';
import { until } from '../support/concurrency';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { HttpCall, httpCall, keepSending } from '../support/http-call';
import { OwnPostgres } from '../support/own-postgres';
import { createTestApp, TestApp } from '../support/test-app';

const WRITERS = 16;
/** The pool's size (data-source-options.ts): this many requests can be inside PostgreSQL at once. */
const POOL_SIZE = 20;

/** What one fault did to the load: every call, those in flight when it struck, readiness meanwhile. */
interface Strike {
  calls: HttpCall[];
  inFlight: HttpCall[];
  readiness: HttpCall;
  faultAt: number;
}

/**
 * A session that holds an exclusive lock on `records`, so that every write of a note waits inside
 * PostgreSQL: the requests are certainly in flight in the database when the fault strikes.
 */
async function lockRecords(url: string): Promise<Client> {
  const locker = new Client({ connectionString: url });
  locker.on('error', () => undefined); // it dies with the server in some of the faults
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE records IN ACCESS EXCLUSIVE MODE');
  return locker;
}

async function waitingOnLock(locker: Client): Promise<number> {
  const { rows } = await locker.query<{ count: string }>(
    `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return Number(rows[0].count);
}

describe('PostgreSQL lost with writes in flight: every answer is 200 or 503 database_unavailable with Retry-After', () => {
  let pg: OwnPostgres;
  let t: TestApp;
  let ws: TestWorkspace;
  let baseUrl: string;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });

  beforeAll(async () => {
    pg = await OwnPostgres.start();
    t = await createTestApp({ env: { DATABASE_URL: pg.url } });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = await t.app.getUrl();
    ws = await createWorkspace(t.http);
  });
  afterAll(async () => {
    agent.destroy();
    try {
      await t?.close();
    } finally {
      if (t) rmSync(t.config.dataDir, { recursive: true, force: true });
      await pg?.dispose();
    }
  });

  const headers = () => ({ Authorization: `Bearer ${ws.key}`, 'Service-Version': SERVICE_VERSION });

  /** Writes of notes (a third with an Idempotency-Key, so through the idempotency transaction) and lists. */
  function load(workers = WRITERS) {
    return keepSending(workers, (worker, i) => {
      if (i % 4 === 3) return httpCall(baseUrl, { path: '/v1/notes?limit=5', headers: headers(), agent });
      const key: Record<string, string> =
        i % 3 === 0 ? { 'Idempotency-Key': `fault-${process.pid}-${worker}-${i}-${Date.now()}` } : {};
      return httpCall(baseUrl, {
        method: 'POST',
        path: '/v1/notes',
        headers: { ...headers(), ...key },
        body: { fields: { $title: `w${worker} #${i}`, $content: 'written under a fault' } },
        agent,
      });
    });
  }

  function expectOnly200Or503(calls: HttpCall[]): void {
    for (const call of calls) {
      const request = `${call.method} ${call.path}`;
      const outcome = call.error ?? (call.status === 200 || call.status === 503 ? 'answered' : `status ${call.status}`);
      expect({ request, outcome, body: call.body }).toEqual({ request, outcome: 'answered', body: call.body });
      if (call.status === 503) {
        expect({ request, body: call.body }).toEqual({
          request,
          body: { error: { type: 'service_unavailable', code: 'database_unavailable', message: expect.any(String) } },
        });
        expect(call.headers['retry-after']).toBe('1');
      }
    }
  }

  /**
   * The requests in flight when sessions are told to stop: each a 503, or a 200 whose note is
   * really stored. Which of the two a parked request gets is PostgreSQL's race, not the service's:
   * the lock holder's session may end first, and the parked writes then commit before their own
   * sessions are told to stop (seen once in a CI run: every one of them 200). So the fault is shown
   * met by a 503 among the requests in flight or those sent while the database was away, and every
   * 200 in flight is checked to be stored.
   */
  async function expectInFlightTruthful({ calls, inFlight, faultAt }: Strike): Promise<void> {
    expect(inFlight.length).toBeGreaterThanOrEqual(WRITERS / 2);
    expect(calls.some((call) => call.endedAt > faultAt && call.status === 503)).toBe(true);
    for (const call of inFlight.filter((done) => done.method === 'POST' && done.status === 200)) {
      const id = (call.body as { id: string }).id;
      const read = await httpCall(baseUrl, { path: `/v1/notes/${id}`, headers: headers(), agent });
      expect({ id, status: read.status }).toEqual({ id, status: 200 });
    }
  }

  /**
   * Runs the load, parks writes inside PostgreSQL behind a lock, strikes, keeps the load on while
   * the database is away, recovers, and waits for writes to succeed again.
   */
  async function strike(fault: (locker: Client) => Promise<void>, recover: () => Promise<void>): Promise<Strike> {
    const running = load();
    await until('writes to succeed', () => running.calls.filter((call) => call.status === 200).length >= 20);
    const locker = await lockRecords(pg.url);
    await until('writes to wait inside PostgreSQL', async () => (await waitingOnLock(locker)) >= WRITERS / 2);
    const faultAt = Date.now();
    await fault(locker);
    await sleep(800);
    const readiness = await httpCall(baseUrl, { path: '/health/ready', agent });
    await recover();
    const recoveredAt = Date.now();
    await until('writes to succeed again', () =>
      running.calls.some((call) => call.startedAt > recoveredAt && call.method === 'POST' && call.status === 200),
    );
    await locker.end().catch(() => undefined);
    const calls = await running.stop();
    const inFlight = calls.filter((call) => call.startedAt < faultAt && call.endedAt > faultAt);
    return { calls, inFlight, readiness, faultAt };
  }

  it('a session terminated between two statements of a transaction fails with its own error (57P01), not TypeORM\'s "already released"', async () => {
    const transactions = t.app.get(Transactions);
    const terminated = transactions.run(async () => {
      const [{ pid }] = await transactions.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // The FATAL arrives while no statement runs: the connection reports it as an error event,
      // waited for here rather than guessed with a sleep. (A query runner's connect() answers the
      // connection it already holds; a repository's manager is the transaction's.)
      const connection = (await transactions.repository(WorkspaceEntity).manager.queryRunner!.connect()) as Client;
      const reported = once(connection, 'error');
      const admin = new Client({ connectionString: pg.url });
      await admin.connect();
      try {
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      } finally {
        await admin.end();
      }
      await reported;
      await transactions.query('SELECT 1');
    });
    const error = await terminated.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect((error as { code?: string }).code).toBe('57P01');
    expect(toApiError(error)?.status).toBe(503);
  });

  it('on a crash (postmaster and backends killed): in-flight writes and those until the restart are 503', async () => {
    const { calls, inFlight, readiness } = await strike(
      async () => pg.kill(),
      () => pg.restart(),
    );
    expectOnly200Or503([...calls, readiness]);
    expect(readiness.status).toBe(503);
    expect(inFlight.filter((call) => call.status === 503).length).toBeGreaterThanOrEqual(WRITERS / 2);
  });

  it('on a fast shutdown (sessions terminated with 57P01, then connections refused): 503 or a stored write, then 200 after the restart', async () => {
    const struck = await strike(
      () => pg.stop(),
      () => pg.restart(),
    );
    expectOnly200Or503([...struck.calls, struck.readiness]);
    expect(struck.readiness.status).toBe(503);
    await expectInFlightTruthful(struck);
  });

  it('on every session terminated by an administrator (pg_terminate_backend): 503 or a stored write for those in flight only', async () => {
    const struck = await strike(
      async () => {
        const admin = new Client({ connectionString: pg.url });
        await admin.connect();
        try {
          await admin.query(
            'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
          );
        } finally {
          await admin.end();
        }
      },
      async () => undefined,
    );
    expectOnly200Or503(struck.calls);
    await expectInFlightTruthful(struck);
  });

  it('when the pool is exhausted past its connection timeout: 503 for those that waited, then 200 again', async () => {
    const running = load(POOL_SIZE + 8);
    await until('writes to succeed', () => running.calls.filter((call) => call.status === 200).length >= 20);
    const locker = await lockRecords(pg.url);
    await until(
      'every pooled connection to wait inside PostgreSQL',
      async () => (await waitingOnLock(locker)) >= POOL_SIZE,
    );
    const exhaustedAt = Date.now();
    // The pool's connection timeout is 5 s: the requests queued for a connection give up.
    await until('a request to give up waiting for a connection', () =>
      running.calls.some((call) => call.startedAt > exhaustedAt && call.status === 503),
    );
    await locker.query('ROLLBACK');
    await locker.end();
    const releasedAt = Date.now();
    await until('writes to succeed again', () =>
      running.calls.some((call) => call.startedAt > releasedAt && call.status === 200),
    );
    expectOnly200Or503(await running.stop());
  });
});

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { IdempotencyRepository } from '../../src/common/idempotency/idempotency.repository';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { until } from '../support/concurrency';
import { createWorkspace } from '../support/factories';
import { httpCall } from '../support/http-call';
import { StdoutCapture } from '../support/log-capture';
import { createIsolatedTestApp, ScratchDatabase } from '../support/scratch-database';
import { ServiceProcess } from '../support/service-process';
import { TEST_ADMIN_TOKEN, TestApp } from '../support/test-app';
import { newWebhookSecret, WebhookReceiver } from '../support/webhook-receiver';

const ROOT = path.resolve(__dirname, '..', '..');

// Each test starts service processes or the CLI, Node processes that compile the TypeScript they run.
jest.setTimeout(120_000);

/** What a process's connections are for, as their `application_name` says (`records[pid] purpose`). */
async function purposesOf(db: Client, pid: number): Promise<string[]> {
  const { rows } = await db.query<{ purpose: string }>(
    `SELECT DISTINCT substr(application_name, length($1) + 1) AS purpose FROM pg_stat_activity WHERE starts_with(application_name, $1) ORDER BY 1`,
    [`records[${pid}] `],
  );
  return rows.map((row) => row.purpose);
}

/**
 * ROLES: an `api` process serves the API and runs no job, a `worker` runs the job queue and serves
 * only the health checks, and the CLI runs neither. Each process's connections are told apart by
 * their application_name, so the queue's are counted from PostgreSQL's side.
 */
describe('process roles', () => {
  describe('a worker alone', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createIsolatedTestApp('records_roles_worker', { env: { ROLES: 'worker' } });
    });
    afterAll(() => t.close());

    it('serves /health and /health/ready, and 404 not_found on every other path', async () => {
      for (const healthy of ['/health', '/health/ready', '/HEALTH/', '/health/ready/']) {
        expect({ path: healthy, status: (await t.http.get(healthy)).status }).toEqual({ path: healthy, status: 200 });
      }
      for (const other of ['/v1/notes/note_01JZ0000000000000000000000', '/docs', '/health/other', '/metrics']) {
        const response = await t.http
          .get(other)
          .set({ Authorization: 'Bearer sk_nothing', 'Service-Version': SERVICE_VERSION });
        expect({ path: other, status: response.status, code: response.body.error?.code }).toEqual({
          path: other,
          status: 404,
          code: 'not_found',
        });
      }
    });
  });

  describe("the periodic work, on the queue's schedule", () => {
    let t: TestApp;
    let output: StdoutCapture;
    beforeAll(async () => {
      output = new StdoutCapture();
      t = await createIsolatedTestApp('records_roles_periodic', { env: { ROLES: 'worker', LOG_LEVEL: 'error' } });
    });
    afterAll(async () => {
      await t.close();
      output.restore();
    });

    it('is scheduled once for every worker, each piece by its name', async () => {
      const known = await t.app
        .get(DataSource)
        .query(`SELECT identifier FROM graphile_worker._private_known_crontabs ORDER BY identifier`);
      expect(known.map((row: { identifier: string }) => row.identifier)).toEqual([
        'event_retention',
        'file_sweep',
        'idempotency_sweep',
        'webhook_delivery_retention',
        'webhook_recovery',
      ]);
    });

    it('logs a run that fails, naming the work, and runs it again the next period', async () => {
      const sweep = jest
        .spyOn(IdempotencyRepository.prototype, 'deleteExpired')
        .mockRejectedValueOnce(new Error('the database went away'));
      const failures = () =>
        output.records.filter((record) => record.msg === 'idempotency sweep failed; it runs again next period');
      try {
        // Enqueued here as its minute would enqueue it.
        await t.app.get(DataSource).query(`SELECT graphile_worker.add_job('idempotency_sweep')`);
        await until('the failure to be logged', () => failures().length === 1);
        expect(failures()[0]).toMatchObject({
          level: 50,
          context: 'JobQueue',
          err: expect.objectContaining({ message: 'the database went away' }),
        });
        await t.app.get(DataSource).query(`SELECT graphile_worker.add_job('idempotency_sweep')`);
        const jobsLeft = async () =>
          (
            await t.app
              .get(DataSource)
              .query(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE task_identifier = 'idempotency_sweep'`)
          )[0].n;
        // Both jobs ended (the failed run's too: it is not retried by the queue, the next period is its retry).
        await until(
          'the next run to sweep, and both jobs to end',
          async () => sweep.mock.calls.length === 2 && (await jobsLeft()) === 0,
        );
        expect(failures()).toHaveLength(1);
      } finally {
        sweep.mockRestore();
      }
    });
  });

  describe('connections to the job queue', () => {
    const database = new ScratchDatabase('records_roles');
    const services: ServiceProcess[] = [];
    let db: Client;
    let receiver: WebhookReceiver;
    const folders: string[] = [];

    beforeAll(async () => {
      await database.create();
      db = new Client({ connectionString: database.url });
      await db.connect();
      receiver = await WebhookReceiver.start(newWebhookSecret());
    });
    afterAll(async () => {
      for (const service of services) await service.dispose();
      await receiver?.close();
      await db?.end();
      await database.drop();
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    });

    const start = async (roles: string) => {
      const service = await ServiceProcess.start({
        DATABASE_URL: database.url,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        ROLES: roles,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        RATE_LIMIT_WRITE: '100000',
      });
      services.push(service);
      return service;
    };

    /** The CLI's `workspace:create`, with what its connections were for, seen while it ran. */
    async function cliPurposes(): Promise<{ code: number | null; purposes: string[] }> {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'records-cli-'));
      folders.push(dataDir);
      const child = spawn(
        process.execPath,
        [
          '-r',
          path.join(ROOT, 'test', 'support', 'register-ts.js'),
          path.join(ROOT, 'src', 'cli', 'main.ts'),
          'workspace:create',
          '--name',
          'Roles',
        ],
        { cwd: ROOT, env: { PATH: process.env.PATH, DATA_DIR: dataDir, DATABASE_URL: database.url }, stdio: 'ignore' },
      );
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let done = false;
      void exited.then(() => (done = true));
      const seen = new Set<string>();
      while (!done) {
        for (const purpose of await purposesOf(db, child.pid!)) seen.add(purpose);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return { code: await exited, purposes: [...seen].sort() };
    }

    it('an api process enqueues deliveries in its writes without a connection of the queue; a worker makes them with its own', async () => {
      const api = await start('api');
      const ws = await createWorkspace(request(api.baseUrl));
      await db.query(
        `INSERT INTO webhook_endpoints (id, workspace_id, member_id, api_key_id, url, event_types, status, secret, created_at, updated_at)
         VALUES ('whk_test_roles', $1, $2, $3, $4, '{note.created}', 'ENABLED', $5, now(), now())`,
        [ws.workspaceId, ws.memberId, ws.apiKeyId, receiver.url, receiver.secret],
      );
      const note = await httpCall(api.baseUrl, {
        method: 'POST',
        path: '/v1/notes',
        headers: { Authorization: `Bearer ${ws.key}`, 'Service-Version': SERVICE_VERSION },
        body: { fields: { $title: 'enqueued by the api' } },
      });
      expect(note.status).toBe(200);
      // The write's one row of the outbox, waiting for a worker, and no job: the attempts are the worker's to make.
      const { rows: waiting } = await db.query(
        `SELECT (SELECT count(*)::int FROM webhook_outbox WHERE workspace_id = $1) AS outbox,
                (SELECT count(*)::int FROM graphile_worker.jobs WHERE task_identifier LIKE 'webhook%') AS jobs`,
        [ws.workspaceId],
      );
      expect(waiting).toEqual([{ outbox: 1, jobs: 0 }]);
      const apiPurposes = await purposesOf(db, api.pid);
      expect(apiPurposes).toContain('app');
      expect(apiPurposes).not.toContain('job queue');
      expect(receiver.received).toEqual([]);

      const worker = await start('worker');
      await until('the worker to deliver the event', () => receiver.delivered.length === 1);
      expect(await purposesOf(db, worker.pid)).toContain('job queue');
      expect(await purposesOf(db, api.pid)).not.toContain('job queue');
    });

    it('the CLI opens no connection of the queue', async () => {
      const run = await cliPurposes();
      expect(run.code).toBe(0);
      // Its migrations' and its pool's connections were seen: a queue's would have been too.
      expect(run.purposes).toEqual(expect.arrayContaining(['app']));
      expect(run.purposes).not.toContain('job queue');
    });

    it("takes its liveness lock again when the lock's session is terminated", async () => {
      const worker = await start('worker');
      const heldBy = async () =>
        (
          await db.query<{ pid: number; key: string }>(
            `SELECT a.pid, l.classid::text || ':' || l.objid::text AS key
               FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
              WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1`,
            [`records[${worker.pid}] session locks`],
          )
        ).rows;
      await until('the worker to hold its liveness lock', async () => (await heldBy()).length === 1);
      const [before] = await heldBy();
      await db.query(`SELECT pg_terminate_backend($1)`, [before.pid]);
      await until('the lock to be taken again on a new session', async () => {
        const now = await heldBy();
        return now.length === 1 && now[0].pid !== before.pid;
      });
      expect((await heldBy())[0].key).toBe(before.key);
    });
  });
});

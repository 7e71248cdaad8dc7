import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { sleep, until } from '../support/concurrency';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { HttpCall, httpCall } from '../support/http-call';
import { connectRedis, TEST_REDIS_URL } from '../support/redis';
import { ScratchDatabase } from '../support/scratch-database';
import { ServiceProcess } from '../support/service-process';
import { TEST_ADMIN_TOKEN } from '../support/test-app';
import { newWebhookSecret, WebhookReceiver } from '../support/webhook-receiver';

const PGBOUNCER_SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'pgbouncer.sh');
/** What WebhookQueue waits before making again an attempt whose worker is gone: a claim's age (60 s), then its check (each minute), then the job. */
const RECOVERY_WAIT_MS = 150_000;
const WRITERS = 4;
/** A process started while the others are under load starts slower than one started alone. */
const READY_UNDER_LOAD_MS = 120_000;
const FEED_READERS = 2;

/**
 * S3 on Ceph when the run exports it (.ci/run sources scripts/s3-ceph.sh's settings), else each
 * process's local file storage: the load below stores no file, so either serves.
 */
function s3Env(): Record<string, string> {
  const names = [
    'S3_BUCKET',
    'S3_ENDPOINT',
    'S3_REGION',
    'S3_ACCESS_KEY_ID',
    'S3_SECRET_ACCESS_KEY',
    'S3_FORCE_PATH_STYLE',
  ];
  return Object.fromEntries(names.filter((name) => process.env[name]).map((name) => [name, process.env[name]!]));
}

/** PgBouncer in transaction mode in front of the machine's PostgreSQL (scripts/pgbouncer.sh), its config and log in a folder of its own. */
class Pooler {
  private constructor(
    private readonly folder: string,
    readonly url: string,
  ) {}

  static start(): Pooler {
    const folder = mkdtempSync(path.join(tmpdir(), 'pgbouncer-'));
    execFileSync(PGBOUNCER_SCRIPT, ['start', folder], { stdio: 'pipe' });
    const url = /PGBOUNCER_URL=(\S+)/.exec(readFileSync(path.join(folder, 'env'), 'utf8'))![1];
    return new Pooler(folder, url);
  }

  /** The URL of `database` through the pooler. */
  urlOf(database: string): string {
    return `${this.url}/${database}`;
  }

  stop(): void {
    execFileSync(PGBOUNCER_SCRIPT, ['stop', this.folder], { stdio: 'pipe' });
  }
}

/**
 * The deployment of README "At scale" on one machine: PgBouncer 1.18 in transaction mode in front
 * of PostgreSQL (DATABASE_POOL_MODE=transaction, the session work on DATABASE_DIRECT_URL), two
 * `api` processes and one `worker`, Redis. Under load through both API processes (idempotent
 * creates, a webhook endpoint, feed readers following their cursors), one API process and the
 * worker are SIGKILLed and started again. Every acknowledged write is stored once, every event
 * is delivered, no answer is a 5xx but the documented 503, and the readers' feed skips nothing.
 */
describe('two API processes and a worker behind PgBouncer in transaction mode, across a SIGKILL of one API process and the worker', () => {
  const database = new ScratchDatabase('records_pooled_topology');
  const services: ServiceProcess[] = [];
  let pooler: Pooler | undefined;
  let receiver: WebhookReceiver | undefined;
  let db: Client;

  beforeAll(async () => {
    (await connectRedis()).disconnect();
    pooler = Pooler.start();
    await database.create();
    db = new Client({ connectionString: database.url });
    await db.connect();
  });
  afterAll(async () => {
    for (const service of services) await service.dispose();
    await receiver?.close();
    await db?.end();
    await database.drop();
    pooler?.stop();
  });

  const start = async (roles: 'api' | 'worker') => {
    const service = await ServiceProcess.start(
      {
        ROLES: roles,
        DATABASE_URL: pooler!.urlOf(database.name),
        DATABASE_DIRECT_URL: database.url,
        DATABASE_POOL_MODE: 'transaction',
        REDIS_URL: TEST_REDIS_URL,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        RATE_LIMIT_WRITE: '100000',
        RATE_LIMIT_READ: '100000',
        RATE_LIMIT_SEARCH: '100000',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1',
        ...s3Env(),
      },
      undefined,
      { readyTimeoutMs: READY_UNDER_LOAD_MS },
    );
    services.push(service);
    return service;
  };

  it(
    'stores each acknowledged write once, delivers every event, answers no 5xx but 503, and its feed skips nothing',
    async () => {
      const apis = [await start('api'), await start('api')];
      let worker = await start('worker');
      const ws: TestWorkspace = await createWorkspace(request(apis[0].baseUrl));
      const headers = { Authorization: `Bearer ${ws.key}`, 'Service-Version': SERVICE_VERSION };
      receiver = await WebhookReceiver.start(newWebhookSecret());
      await db.query(
        `INSERT INTO webhook_endpoints (id, workspace_id, member_id, api_key_id, url, event_types, status, secret, created_at, updated_at)
       VALUES ('whk_test_pooled', $1, $2, $3, $4, ARRAY['note.created'], 'ENABLED', $5, now(), now())`,
        [ws.workspaceId, ws.memberId, ws.apiKeyId, receiver.url, receiver.secret],
      );

      const answers: HttpCall[] = [];
      /** Sent to the API processes in turn, to the next one when a process does not answer (a load balancer's retry). */
      let turn = 0;
      const call = async (
        options: Omit<Parameters<typeof httpCall>[1], 'headers'> & { headers?: Record<string, string> },
      ) => {
        for (;;) {
          if (abandoned) throw new Error('the load was abandoned');
          const answer = await httpCall(apis[turn++ % apis.length].baseUrl, {
            ...options,
            headers: { ...headers, ...options.headers },
          });
          answers.push(answer);
          if (answer.status !== 0) return answer;
          await sleep(20);
        }
      };

      // Each write is one title under one Idempotency-Key, sent again until acknowledged (a 409 while the first is still
      // running, a 503, or no answer at all from a process killed under it).
      let loading = true;
      /** Set when the test fails under load: the loops stop at once, a write unacknowledged. */
      let abandoned = false;
      const acknowledged = new Map<string, string>();
      const writers = Array.from({ length: WRITERS }, async (_unused, writer) => {
        for (let i = 0; loading; i++) {
          const title = `pooled ${writer}/${i}`;
          while (!abandoned) {
            const answer = await call({
              method: 'POST',
              path: '/v1/notes',
              headers: { 'Idempotency-Key': title },
              body: { fields: { $title: title } },
            });
            if (answer.status === 200 || answer.status === 201) {
              acknowledged.set(title, answer.body.id);
              break;
            }
            await sleep(50);
          }
        }
      });
      const readFeed = async (cursor: string | undefined, seen: string[]) => {
        const answer = await call({ path: cursor ? `/v1/events?limit=50&cursor=${cursor}` : '/v1/events?limit=50' });
        if (answer.status !== 200) return cursor;
        seen.push(...answer.body.data.map((event: { id: string }) => event.id));
        return answer.body.nextCursor as string;
      };
      const followed = Array.from({ length: FEED_READERS }, () => [] as string[]);
      const cursors: (string | undefined)[] = Array(FEED_READERS).fill(undefined);
      const readers = followed.map(async (seen, reader) => {
        while (loading) {
          cursors[reader] = await readFeed(cursors[reader], seen);
          await sleep(100);
        }
      });

      try {
        await until('40 writes to be acknowledged', () => acknowledged.size >= 40, 60_000);
        apis[1].signal('SIGKILL');
        worker.signal('SIGKILL');
        await Promise.all([apis[1].exited, worker.exited]);
        const acknowledgedAtKill = acknowledged.size;
        apis[1] = await start('api');
        worker = await start('worker');
        await until('40 more writes to be acknowledged', () => acknowledged.size >= acknowledgedAtKill + 40, 60_000);
      } catch (error) {
        abandoned = true;
        throw error;
      } finally {
        loading = false;
        await Promise.allSettled([...writers, ...readers]);
      }

      // Each acknowledged title is one note, whose id is the one acknowledged, and nothing else was stored.
      const { rows } = await db.query<{ id: string; title: string }>(
        `SELECT id, fields->>'$title' AS title FROM records WHERE workspace_id = $1 AND object_type = 'note'`,
        [ws.workspaceId],
      );
      expect(rows.length).toBe(acknowledged.size);
      expect(new Map(rows.map((row) => [row.title, row.id]))).toEqual(acknowledged);

      // No 5xx but 503 database_unavailable.
      const serverErrors = answers.filter((answer) => answer.status >= 500);
      expect(
        serverErrors.filter(
          (answer) => !(answer.status === 503 && answer.body?.error?.code === 'database_unavailable'),
        ),
      ).toEqual([]);

      // Each reader, followed to the end, saw the feed as read at once from its start: none skipped, none twice.
      const whole: string[] = [];
      for (let cursor = await readFeed(undefined, whole), length = -1; whole.length !== length;) {
        length = whole.length;
        cursor = await readFeed(cursor, whole);
      }
      for (const [reader, seen] of followed.entries()) {
        for (let length = -1; seen.length !== length;) {
          length = seen.length;
          cursors[reader] = await readFeed(cursors[reader], seen);
        }
        expect(seen).toEqual(whole);
      }
      const created = await db.query<{ id: string }>(
        `SELECT id FROM events WHERE workspace_id = $1 AND type = 'note.created'`,
        [ws.workspaceId],
      );
      expect(created.rows.length).toBe(acknowledged.size);

      // Every note.created event is delivered, the attempts the kill cut off made again by the new worker.
      const delivered = () => new Set(receiver!.delivered.map((hook) => hook.id));
      await until(
        'every event to be delivered',
        () => created.rows.every((event) => delivered().has(event.id)),
        RECOVERY_WAIT_MS,
      );
      expect(receiver.rejected).toEqual([]);
    },
    RECOVERY_WAIT_MS + 180_000,
  );
});

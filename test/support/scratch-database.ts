import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runMigrations } from '../../src/database/migrate';
import { createTestApp, TestApp, testDatabaseUrl } from './test-app';

/**
 * A database of a suite's own on the test run's PostgreSQL server, for what must not share the
 * run's database: a migration run from nothing, or apps whose job queue must not be served by
 * other suites' apps (every app runs the webhook queue on its database, with its own settings).
 * Its name and URL are known when it is made (in a describe block, before the hooks run);
 * `create()` makes it, `drop()` removes it, closing the connections still open to it.
 */
export class ScratchDatabase {
  readonly name: string;
  readonly url: string;
  /** PostgreSQL itself, not a transaction-mode pooler in front of it (TEST_DATABASE_DIRECT_URL): migrations need a session. */
  private readonly serverUrl = process.env.TEST_DATABASE_DIRECT_URL || testDatabaseUrl();

  constructor(prefix: string) {
    this.name = `${prefix}_${randomBytes(4).toString('hex')}`;
    this.url = Object.assign(new URL(this.serverUrl), { pathname: `/${this.name}` }).toString();
  }

  /** Creates the database, with the schema migrated unless `migrate` is false. */
  async create({ migrate = true } = {}): Promise<void> {
    await this.onServer(`CREATE DATABASE ${this.name}`);
    if (migrate) await runMigrations(this.url);
  }

  async drop(): Promise<void> {
    await this.onServer(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
  }

  private async onServer(sql: string): Promise<void> {
    const client = new Client({ connectionString: this.serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }
}

/**
 * createTestApp on a migrated scratch database, dropped when the app closes: for a suite whose
 * webhooks make deliveries. Each delivery attempt is a job of the database's queue, which the
 * worker of every app on that database is woken for and may take: on the shared database, the
 * apps of the other suites would make these attempts with their own settings, and statements they
 * did not send would show in the ones a suite counts.
 */
export async function createIsolatedTestApp(
  prefix: string,
  options: Parameters<typeof createTestApp>[0] = {},
): Promise<TestApp> {
  const database = new ScratchDatabase(prefix);
  await database.create();
  const t = await createTestApp({
    ...options,
    env: { ROLES: 'api,worker', ...options.env, DATABASE_URL: database.url },
  });
  const close = async () => {
    try {
      await t.close();
    } finally {
      await database.drop();
    }
  };
  return { ...t, close };
}

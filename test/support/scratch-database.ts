import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runMigrations } from '../../src/database/migrate';
import { createTestApp, TestApp, testDatabaseUrl } from './test-app';

export interface ScratchDatabase {
  /** The database's URL: on the test server, under a name of its own. */
  url: string;
  create(): Promise<void>;
  /** Drops it, closing the sessions still on it. */
  drop(): Promise<void>;
}

/**
 * A database of its own on the run's test server (empty until migrated), for a suite that must not
 * share the run's database: one that reverts migrations, or one whose app makes webhook deliveries
 * (see createIsolatedTestApp).
 */
export function scratchDatabase(prefix: string): ScratchDatabase {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const serverUrl = testDatabaseUrl();
  const onServer = async (sql: string) => {
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    url: Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString(),
    create: () => onServer(`CREATE DATABASE ${name}`),
    drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * createTestApp on a migrated scratch database, dropped when the app closes: for a suite whose
 * webhooks make deliveries. Each delivery attempt is a job of the database's queue, which the
 * worker of every app on that database is woken for and may take: on the shared database, the
 * apps of the other suites would make these attempts with their own settings, and statements they
 * did not send would show in the ones a suite counts.
 */
export async function createIsolatedTestApp(prefix: string, options: Parameters<typeof createTestApp>[0] = {}): Promise<TestApp> {
  const database = scratchDatabase(prefix);
  await database.create();
  await runMigrations(database.url);
  const t = await createTestApp({ ...options, env: { ...options.env, DATABASE_URL: database.url } });
  const close = async () => {
    try {
      await t.close();
    } finally {
      await database.drop();
    }
  };
  return { ...t, close };
}

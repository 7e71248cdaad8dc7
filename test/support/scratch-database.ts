import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { testDatabaseUrl } from './test-app';

export interface ScratchDatabase {
  /** The database's URL: on the test server, under a name of its own. */
  url: string;
  create(): Promise<void>;
  /** Drops it, closing the sessions still on it. */
  drop(): Promise<void>;
}

/**
 * A database of its own on the run's test server (empty until migrated), for a suite that must not
 * share the run's database: one that reverts migrations, or whose app runs background jobs that the
 * other suites' apps, on the shared database, would otherwise take from the same queue.
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

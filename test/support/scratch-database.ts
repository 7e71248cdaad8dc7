import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { runMigrations } from '../../src/database/migrate';
import { testDatabaseUrl } from './test-app';

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
  private readonly serverUrl = testDatabaseUrl();

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

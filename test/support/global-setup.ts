import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { runMigrations } from '../../src/database/migrate';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * One database for the run: TEST_DATABASE_URL when set (its name must say "test", so that a
 * production database is never touched), else an embedded PostgreSQL in a temporary directory.
 * Suites share it and isolate themselves by creating their own workspaces.
 */
export default async function globalSetup(): Promise<void> {
  let url = process.env.TEST_DATABASE_URL;
  if (url) {
    const name = new URL(url).pathname.slice(1);
    if (!/test/i.test(name)) throw new Error(`TEST_DATABASE_URL names database "${name}", which does not say "test"`);
  } else {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'records-test-'));
    const embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'records_test' });
    (globalThis as { stopTestDatabase?: () => Promise<void> }).stopTestDatabase = embedded.stop;
    url = embedded.url;
  }
  await runMigrations(url);
  process.env.RESOLVED_TEST_DATABASE_URL = url;
}

import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
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
 * One temporary folder for everything a run writes (the embedded database, each app's DATA_DIR,
 * the processes tests start): TMPDIR points into it for the test workers, which inherit this
 * process's environment, and the teardown deletes it, so a run leaves /tmp as it found it, failed
 * or not. Readable by others because, as root, the embedded PostgreSQL runs as `postgres`.
 */
function makeRunFolder(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'records-test-'));
  chmodSync(folder, 0o755);
  process.env.RECORDS_TEST_RUN_FOLDER = folder;
  process.env.TMPDIR = folder;
  return folder;
}

/**
 * One database for the run: TEST_DATABASE_URL when set (its name must say "test", so that a
 * production database is never touched), else an embedded PostgreSQL in the run's folder.
 * Suites share it and isolate themselves by creating their own workspaces.
 */
export default async function globalSetup(): Promise<void> {
  const folder = makeRunFolder();
  let url = process.env.TEST_DATABASE_URL;
  if (url) {
    const name = new URL(url).pathname.slice(1);
    if (!/test/i.test(name)) throw new Error(`TEST_DATABASE_URL names database "${name}", which does not say "test"`);
  } else {
    const dataDir = path.join(folder, 'postgres');
    mkdirSync(dataDir);
    const embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: 'records_test' });
    (globalThis as { stopTestDatabase?: () => Promise<void> }).stopTestDatabase = embedded.stop;
    url = embedded.url;
  }
  // Behind a transaction-mode pooler (TEST_DATABASE_POOL_MODE), migrations need a session of their own.
  await runMigrations(process.env.TEST_DATABASE_DIRECT_URL || url);
  process.env.RESOLVED_TEST_DATABASE_URL = url;
}

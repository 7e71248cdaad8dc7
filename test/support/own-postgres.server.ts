/**
 * The process that runs an OwnPostgres server (see own-postgres.ts), started with register-ts.js:
 * the embedded PostgreSQL package is ESM-only and cannot be imported inside jest's sandbox. It
 * answers `start` and `stop` messages, and stops its server when the test process goes away.
 */
import { EmbeddedDatabase, startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { runMigrations } from '../../src/database/migrate';

export type OwnPostgresCommand =
  { command: 'start'; dataDir: string; port: number; migrate: boolean } | { command: 'stop' };
export type OwnPostgresReply = { ok: true; url?: string } | { ok: false; error: string };

let current: EmbeddedDatabase | undefined;

async function run(message: OwnPostgresCommand): Promise<OwnPostgresReply> {
  if (message.command === 'start') {
    // After a crash the previous handle is stale (its process is gone): it is replaced, not stopped.
    current = await startEmbeddedPostgres({ dataDir: message.dataDir, port: message.port, database: 'records_faults' });
    if (message.migrate) await runMigrations(current.url);
    return { ok: true, url: current.url };
  }
  const running = current;
  current = undefined;
  await running?.stop();
  return { ok: true };
}

process.on('message', (message: OwnPostgresCommand) => {
  run(message).then(
    (reply) => process.send!(reply),
    (error: unknown) => process.send!({ ok: false, error: String(error) }),
  );
});
process.on('disconnect', () => {
  void (current?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
});

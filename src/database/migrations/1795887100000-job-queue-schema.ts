import { Logger, runMigrations } from 'graphile-worker';
import { Pool } from 'pg';
import { MigrationInterface, QueryRunner } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import { applicationName } from '../application-name';

const SHOWN_LEVELS = new Set<string>(['error', 'warning']);

/** graphile-worker's own logger says what each migration it runs is: only what may need a look is shown. */
const warningsOnly = new Logger(() => (level, message) => {
  if (SHOWN_LEVELS.has(level)) process.stderr.write(`job queue migrations: ${message}\n`);
});

/**
 * The job queue's schema (graphile-worker's `graphile_worker`), installed with the service's own
 * migrations rather than by the first worker to start: an `api` process enqueues (the trigger on
 * `webhook_deliveries` calls `graphile_worker.add_job`) without ever running the queue, so the
 * schema must be there before any process serves a write.
 *
 * graphile-worker runs each of its migrations in a transaction of its own and takes its own lock,
 * so this one runs outside TypeORM's, on a connection of its own. A later graphile-worker release
 * brings its migrations with a migration of ours that runs this again; a worker also applies them
 * as it starts.
 */
export class JobQueueSchema1795887100000 implements MigrationInterface {
  name = 'JobQueueSchema1795887100000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    const { url } = q.connection.options as PostgresDataSourceOptions;
    if (!url) throw new Error('the job queue schema is installed through a data source given by URL');
    const pgPool = new Pool({ connectionString: url, max: 1, application_name: applicationName('migrations') });
    // An idle connection's error is emitted on the pool (and would end the process unheard); a query's rejects the migration.
    pgPool.on('error', () => undefined);
    pgPool.on('connect', (client) => client.on('error', () => undefined));
    try {
      await runMigrations({ pgPool, logger: warningsOnly });
    } finally {
      await pgPool.end();
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA graphile_worker CASCADE`);
  }
}

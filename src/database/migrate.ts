import { DataSource } from 'typeorm';
import { applicationName } from './application-name';
import { buildDataSourceOptions } from './data-source-options';

/** Serialises migration runs of instances starting together. */
const MIGRATION_LOCK = 727_001;

/**
 * Applies pending migrations under an advisory lock; returns the names applied. The lock is a
 * session's, so `databaseUrl` must reach PostgreSQL itself (DATABASE_DIRECT_URL when a
 * transaction-mode pooler is at DATABASE_URL): through that pooler, the unlock could run on
 * another server session than the lock and leave it held.
 */
export async function runMigrations(databaseUrl: string): Promise<string[]> {
  const dataSource = new DataSource({
    ...buildDataSourceOptions(databaseUrl),
    extra: { max: 1, application_name: applicationName('migrations') },
  });
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((migration) => migration.name);
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await dataSource.destroy();
  }
}

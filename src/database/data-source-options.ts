import { DataSourceOptions } from 'typeorm';
import type { DatabasePoolMode } from '../config/app-config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { applicationName, pooledApplicationName } from './application-name';

/**
 * What pg sends as it connects, for a server reached in `mode`, on connections named after their
 * `purpose`. No JIT: PostgreSQL compiles a statement whose estimated cost is high (a list page
 * planned with a branch that will not run, a count over a large workspace) on every execution,
 * which took 0.2-1 s each; the statements of an API request are short and gain nothing from it.
 * A transaction-mode pooler refuses a startup `options` (PgBouncer: "unsupported startup
 * parameter"), and a session setting made through it would stay on whichever server session ran
 * it: there the database's or the role's own setting must say it (README, "At scale").
 */
export function connectionSettings(mode: DatabasePoolMode, purpose: string) {
  if (mode === 'transaction')
    return { connectionTimeoutMillis: 5000, application_name: pooledApplicationName(purpose) };
  return { connectionTimeoutMillis: 5000, options: '-c jit=off', application_name: applicationName(purpose) };
}

/** One definition of the data source for the app, the tests and the migration CLI (ormconfig.ts). */
export function buildDataSourceOptions(databaseUrl: string, poolMode: DatabasePoolMode = 'session'): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // A pool sized for a 2-core instance; scale out with more instances, not bigger pools.
    extra: { max: 20, ...connectionSettings(poolMode, 'app') },
    logging: false,
  };
}

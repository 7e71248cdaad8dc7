import { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';
import { applicationName } from './application-name';

/** One definition of the data source for the app, the tests and the migration CLI (ormconfig.ts). */
export function buildDataSourceOptions(databaseUrl: string): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // A pool sized for a 2-core instance; scale out with more instances, not bigger pools.
    // No JIT: PostgreSQL compiles a statement whose estimated cost is high (a list page planned
    // with a branch that will not run, a count over a large workspace) on every execution, which
    // took 0.2-1 s each; the statements of an API request are short and gain nothing from it.
    extra: { max: 20, connectionTimeoutMillis: 5000, options: '-c jit=off', application_name: applicationName('app') },
    logging: false,
  };
}

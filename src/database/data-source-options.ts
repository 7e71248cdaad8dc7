import { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

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
    extra: { max: 20, connectionTimeoutMillis: 5000 },
    logging: false,
  };
}

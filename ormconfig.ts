import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from './src/database/data-source-options';

/** The data source used by the TypeORM migration CLI: `npm run migration:run` with DATABASE_URL set (DATABASE_DIRECT_URL first: a pooler may sit at DATABASE_URL). */
const databaseUrl = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL;
if (!databaseUrl) {
  throw new Error('DATABASE_URL must be set to run the migration CLI');
}
export default new DataSource(buildDataSourceOptions(databaseUrl));

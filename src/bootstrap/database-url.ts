import { AppConfig } from '../config/app-config';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../database/embedded-postgres';

/** DATABASE_URL when set; otherwise an embedded PostgreSQL in DATA_DIR, which the caller must stop. */
export async function resolveDatabase(
  config: AppConfig,
  log: (message: string) => void,
): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const embedded = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPostgresPort,
    database: 'records',
    log,
  });
  return { url: embedded.url, embedded };
}

import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp, NEST_APP_OPTIONS } from './app.setup';
import { resolveDatabase } from './bootstrap/database-url';
import { ensureDevCredentials, resolveAdminToken } from './bootstrap/dev-credentials';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { runMigrations } from './database/migrate';
import { Transactions } from './database/transactions';
import { AdminService } from './modules/admin/admin.service';

function say(message: string): void {
  process.stdout.write(`${message}\n`);
}

async function bootstrap(): Promise<void> {
  const startedAt = process.hrtime.bigint();
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const database = await resolveDatabase(config, say);
  const applied = await runMigrations(database.url);
  if (applied.length > 0) say(`applied migrations: ${applied.join(', ')}`);
  const adminToken = resolveAdminToken(config.adminToken, config.isProduction, config.dataDir, () =>
    randomBytes(32).toString('base64url'),
  );
  config = new AppConfig({ ...config, databaseUrl: database.url, adminToken });

  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), NEST_APP_OPTIONS);
  configureApp(app, config);
  await app.listen(config.port);

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    say(`${signal}: draining requests and shutting down`);
    await app.close(); // stops accepting, waits for requests in flight, closes the pool
    await database.embedded?.stop();
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void shutdown(signal));

  const seconds = (Number(process.hrtime.bigint() - startedAt) / 1e9).toFixed(2);
  say(`Workspace records service ready in ${seconds}s`);
  say(`  API:          ${config.publicUrl}/v1`);
  say(`  Swagger UI:   ${config.publicUrl}/docs   (OpenAPI: ${config.publicUrl}/docs-json)`);
  say(`  Database:     ${database.embedded ? `embedded PostgreSQL in ${config.dataDir}/postgres` : 'DATABASE_URL'}`);
  if (!config.isProduction) {
    const demo = await ensureDevCredentials(config.dataDir, app.get(AdminService), app.get(Transactions));
    say(`  Demo API key: ${demo.apiKey}   (workspace ${demo.workspaceId}, every scope)`);
    say(`  Admin token:  ${adminToken}`);
    say(
      `  Try: curl -H "Authorization: Bearer ${demo.apiKey}" -H "Service-Version: 2026-03-01" ${config.publicUrl}/v1/auth/validate`,
    );
  } else if (!adminToken) {
    say('  Operator API: disabled (set ADMIN_TOKEN to enable it)');
  }
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

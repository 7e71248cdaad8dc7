import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp, NEST_APP_OPTIONS } from './app.setup';
import { startupBanner } from './bootstrap/banner';
import { resolveDatabase } from './bootstrap/database-url';
import { ensureDevCredentials, resolveAdminToken } from './bootstrap/dev-credentials';
import { HttpDrain } from './bootstrap/http-drain';
import { ApiKeysService } from './common/auth/api-keys.service';
import { ApiExpressAdapter } from './common/http/http-server';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { runMigrations } from './database/migrate';
import { AdminService } from './modules/admin/admin.service';
import { MetricsListener } from './modules/observability/metrics-listener';
import { FeedWaits } from './modules/events/feed-waits';

/** After the drain deadline, what is left of the shutdown (hooks, pool, embedded database) gets this long. */
const SHUTDOWN_GRACE_MS = 5000;

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
  const applied = await runMigrations(config.databaseDirectUrl ?? database.url);
  if (applied.length > 0) say(`applied migrations: ${applied.join(', ')}`);
  const adminToken = resolveAdminToken(config.adminToken, config.isProduction, config.dataDir, () =>
    randomBytes(32).toString('base64url'),
  );
  config = new AppConfig({ ...config, databaseUrl: database.url, adminToken: adminToken.value });

  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.register(config),
    new ApiExpressAdapter(),
    NEST_APP_OPTIONS,
  );
  configureApp(app, config);
  const drain = new HttpDrain(app.getHttpServer());
  await app.listen(config.port);

  /**
   * SIGTERM: answer the waiting feed reads, drain HTTP (see HttpDrain), then close the application (its hooks close Redis
   * and the pool, which requests no longer need, and the metrics listener, which served the drain
   * to its end), then the embedded database; exit 0.
   */
  const shutdown = async (signal: string) => {
    if (drain.isDraining) return;
    const deadlineMs = config.shutdownTimeoutSeconds * 1000;
    setTimeout(() => {
      process.stderr.write('shutdown did not finish in time; exiting\n');
      process.exit(1);
    }, deadlineMs + SHUTDOWN_GRACE_MS).unref();
    // Long polls answer now, with what they have: the drain would otherwise wait out their `wait`.
    app.get(FeedWaits).release();
    const draining = drain.drain(deadlineMs);
    say(`${signal}: draining requests (at most ${config.shutdownTimeoutSeconds}s), then shutting down`);
    let exitCode = 0;
    try {
      const { cut } = await draining;
      if (cut > 0) say(`closed ${cut} connection(s) whose requests were still running at the deadline`);
      await app.close();
    } catch (error) {
      process.stderr.write(
        `shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      exitCode = 1;
    } finally {
      await database.embedded?.stop();
    }
    process.exit(exitCode);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void shutdown(signal));

  const seconds = (Number(process.hrtime.bigint() - startedAt) / 1e9).toFixed(2);
  const demo = config.isProduction
    ? undefined
    : await ensureDevCredentials(config.dataDir, app.get(AdminService), app.get(ApiKeysService));
  const metricsPort = app.get(MetricsListener).port;
  for (const line of startupBanner({
    config,
    seconds,
    embeddedDatabase: !!database.embedded,
    metricsPort,
    adminToken,
    demo,
  }))
    say(line);
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

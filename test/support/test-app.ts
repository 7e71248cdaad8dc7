import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { INestApplication, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { AppModule } from '../../src/app.module';
import { configureApp, NEST_APP_OPTIONS } from '../../src/app.setup';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { ApiExpressAdapter } from '../../src/common/http/http-server';
import { IdempotencyModule } from '../../src/common/idempotency/idempotency.module';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { watchUndocumentedErrors } from './documented-errors';
import { TEST_WEBHOOK_ALLOWED_NETWORKS } from './loopback';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  document: OpenAPIObject;
  http: TestAgent;
  close(): Promise<void>;
}

export function testDatabaseUrl(): string {
  const url = process.env.RESOLVED_TEST_DATABASE_URL;
  if (!url) throw new Error('no test database: run the tests through jest with test/support/global-setup.ts');
  return url;
}

/**
 * The production AppModule and setup, on the test database, with env overrides; its webhook
 * deliveries are held to loopback (WEBHOOK_ALLOWED_NETWORKS) unless `env` says otherwise. It serves the API
 * and runs no job (`ROLES=api`) unless told: the apps of the suites share the run's database, and
 * a worker among them would make the others' deliveries with its own settings. A suite that needs
 * its deliveries made runs the worker role on a database of its own (createIsolatedTestApp).
 */
export async function createTestApp(
  options: { env?: Record<string, string>; controllers?: Type<unknown>[] } = {},
): Promise<TestApp> {
  const config = new AppConfig({
    ...loadConfig({
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'records-app-')),
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      RATE_LIMIT_READ: '10000',
      RATE_LIMIT_WRITE: '10000',
      RATE_LIMIT_SEARCH: '10000',
      RATE_LIMIT_BATCH_ITEMS: '1000000',
      AUTH_FAILURE_LIMIT_PER_MINUTE: '100000',
      WEBHOOK_ALLOWED_NETWORKS: TEST_WEBHOOK_ALLOWED_NETWORKS,
      ROLES: 'api',
      ...runDatabasePooling(options.env),
      ...options.env,
    }),
    databaseUrl: options.env?.DATABASE_URL ?? testDatabaseUrl(),
  });
  const moduleRef = await Test.createTestingModule({
    // The probe controllers live in this root module: their write routes are idempotent, as a domain
    // module's are, so it imports what the idempotency interceptor is built from.
    imports: [AppModule.register(config), IdempotencyModule],
    controllers: options.controllers ?? [],
  }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(new ApiExpressAdapter(), NEST_APP_OPTIONS);
  const document = configureApp(app, config);
  await app.init();
  // Every e2e suite checks, as it closes, that each error it provoked is in the document.
  const undocumented = watchUndocumentedErrors(app.getHttpServer(), document);
  const close = async () => {
    await app.close();
    if (undocumented.found.size > 0) {
      throw new Error(
        `Errors the OpenAPI document does not list for their operation:\n${[...undocumented.found].join('\n')}`,
      );
    }
  };
  return { app, config, document, http: request(app.getHttpServer()), close };
}

/**
 * TEST_DATABASE_POOL_MODE and TEST_DATABASE_DIRECT_URL: the run's database is reached through a
 * pooler (TEST_DATABASE_URL), PostgreSQL itself at the direct URL (README, "At scale"). An app on a
 * database of its own (DATABASE_URL in `env`) reaches it directly.
 */
export function runDatabasePooling(env: Record<string, string> = {}): Record<string, string> {
  const mode = process.env.TEST_DATABASE_POOL_MODE;
  const direct = process.env.TEST_DATABASE_DIRECT_URL;
  if (env.DATABASE_URL || !direct) return {};
  return {
    DATABASE_URL: testDatabaseUrl(),
    DATABASE_DIRECT_URL: direct,
    ...(mode ? { DATABASE_POOL_MODE: mode } : {}),
  };
}

/** Headers of an authenticated `/v1` call. */
export function v1Headers(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}`, 'Service-Version': SERVICE_VERSION };
}

export function adminHeaders(): Record<string, string> {
  return { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
}

export type { INestApplication };

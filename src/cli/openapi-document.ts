import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from '../app.module';
import { buildOpenApiDocument, NEST_APP_OPTIONS } from '../app.setup';
import { ApiExpressAdapter } from '../common/http/http-server';
import { loadConfig } from '../config/app-config';

/**
 * The settings the document shows (PUBLIC_URL, as its second server) fixed, not read from the
 * environment, so that the document, and the client generated from it, are the same on every machine.
 */
export const DOCUMENT_ENV = { PUBLIC_URL: 'http://localhost:3000', LOG_LEVEL: 'silent' };

/**
 * The document the service serves at `/docs-json`, built without a database: in preview mode Nest
 * reads the modules and routes but instantiates no provider, so nothing connects anywhere.
 */
export async function servedOpenApiDocument(): Promise<OpenAPIObject> {
  const config = loadConfig(DOCUMENT_ENV);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), new ApiExpressAdapter(), {
    ...NEST_APP_OPTIONS,
    preview: true,
    logger: false,
  });
  try {
    return buildOpenApiDocument(app, config);
  } finally {
    await app.close();
  }
}

/** `node dist/src/cli/openapi-document.js > openapi.json`: what `npm run client:generate` reads. */
if (require.main === module) {
  servedOpenApiDocument().then(
    (document) => process.stdout.write(`${JSON.stringify(document, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}

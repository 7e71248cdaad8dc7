import type { NestApplicationOptions } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ADMIN_SECURITY, API_KEY_SECURITY } from './common/auth/auth.decorators';
import { configureHttpServer } from './common/http/http-server';
import { ErrorResponseDto } from './common/errors/error-response.dto';
import { closeRequestBodies } from './common/openapi/closed-request-bodies';
import { documentErrorResponses } from './common/openapi/error-responses';
import { nameRequestBodies } from './common/openapi/named-request-bodies';
import { shareParameters } from './common/openapi/shared-parameters';
import { shareSuccessResponses } from './common/openapi/success-responses';
import { documentSchemaComponents } from './common/openapi/schema-components';
import { operationHandlers, operationIdOf } from './common/openapi/operation-handlers';
import { documentOperationSecurity } from './common/openapi/operation-security';
import { documentResponseHeaders } from './common/openapi/response-headers';
import { SERVICE_VERSION } from './common/versioning/service-version';
import { AppConfig } from './config/app-config';
import { documentFieldValues } from './records/field-value.schema';
import { HttpParserRefusals } from './modules/observability/http-parser-refusals';
import { MetricsListener } from './modules/observability/metrics-listener';
import { MetricsService } from './modules/observability/metrics.service';
import { requestLogging } from './modules/observability/request-logging';
import { ServiceLogger } from './modules/observability/service-logger';

/** Nest application options: the API's JSON body parser replaces Nest's (see apiJsonBody). */
export const NEST_APP_OPTIONS: NestApplicationOptions = { bodyParser: false, bufferLogs: true };

function sortedDocument(document: OpenAPIObject): OpenAPIObject {
  const paths = Object.fromEntries(Object.entries(document.paths).sort(([a], [b]) => a.localeCompare(b)));
  return { ...document, paths };
}

/** The tags in the order a user meets them; Swagger UI lists them so. */
const API_TAGS: [name: string, description: string][] = [
  ['Key validation', 'Check an API key: its workspace, member and scopes.'],
  ['Notes', 'Notes, optionally linked to accounts and opportunities.'],
  ['Tasks', 'Tasks with a status and an assignee (a member).'],
  [
    'Meetings',
    'Meetings with attendees, a transcript file and privacy settings; contacts and accounts are made from attendee emails.',
  ],
  ['Lists', 'Named lists of records of one type.'],
  ['Files', 'Files uploaded in two steps: create (get an upload URL), PUT the bytes, complete.'],
  ['File transfers', 'The signed upload and download URLs of files.'],
  ['Custom objects', 'Records of the custom object types an operator defines.'],
  ['Accounts', 'Companies.'],
  ['Contacts', 'People, found by their email addresses.'],
  ['Opportunities', 'Deals, each of one account.'],
  ['Members', 'The people of the workspace; every API key belongs to one.'],
  ['Events', 'The change feed: every change to the workspace, oldest first, along cursors that never skip one.'],
  [
    'Webhooks',
    'Endpoints the workspace’s events are pushed to, signed (Standard Webhooks), with their delivery attempts.',
  ],
  [
    'Search',
    'Find records of every type by what a person remembers of them: words, names with a typo, email, host or phone fragments.',
  ],
  ['Operations', 'Health and readiness.'],
  ['Operator', 'Workspaces, members, API keys and custom object types, with ADMIN_TOKEN.'],
];

export function buildOpenApiDocument(app: NestExpressApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Workspace records service')
    .setDescription(
      'Notes, meetings, tasks, lists, files and custom object records. Every `/v1` request sends ' +
        `\`Authorization: Bearer <API key>\` and \`Service-Version: ${SERVICE_VERSION}\`. ` +
        'Errors have the shape `{ "error": { "type", "code", "message", "param" } }`.',
    )
    .setVersion(SERVICE_VERSION)
    // Relative first: Swagger UI then calls the address it was loaded from (127.0.0.1, a LAN
    // address, a proxy), where an absolute PUBLIC_URL would be another origin and fail.
    .addServer('/', 'The address this document was loaded from')
    .addServer(config.publicUrl, 'PUBLIC_URL')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'API key (sk_…)', description: 'API key (sk_…)' },
      API_KEY_SECURITY,
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'ADMIN_TOKEN', description: 'Operator ADMIN_TOKEN' },
      ADMIN_SECURITY,
    );
  for (const [name, description] of API_TAGS) builder.addTag(name, description);
  // ErrorResponseDto: the schema of the error responses documentErrorResponses writes, which no decorator names.
  const document = sortedDocument(
    SwaggerModule.createDocument(app, builder.build(), {
      operationIdFactory: operationIdOf,
      extraModels: [ErrorResponseDto],
    }),
  );
  documentSchemaComponents(document);
  const handlers = operationHandlers(app);
  documentOperationSecurity(document, handlers);
  documentResponseHeaders(document, handlers);
  documentErrorResponses(document, handlers);
  shareSuccessResponses(document);
  closeRequestBodies(document);
  nameRequestBodies(document);
  shareParameters(document);
  documentFieldValues(document);
  return document;
}

/** Everything main.ts and the e2e tests both need on top of AppModule. */
export function configureApp(app: NestExpressApplication, config: AppConfig): OpenAPIObject {
  const logger = app.get(ServiceLogger);
  app.useLogger(logger);
  configureHttpServer(app, config, [app.get(MetricsService).observer(), requestLogging(logger)]);
  app.get(HttpParserRefusals).answerOn(app.getHttpServer());
  app.get(MetricsListener).listenWithApp();
  const document = buildOpenApiDocument(app, config);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    yamlDocumentUrl: 'docs-yaml',
    swaggerOptions: { persistAuthorization: true },
  });
  return document;
}

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { Server } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIObject } from '@nestjs/swagger';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { expectError } from '../support/errors';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { metricsUrl } from '../support/metrics';
import { documentOperations, OpenApiValidator, resolved } from '../support/openapi';
import { controllerOperations, servedRoutes } from '../support/routes';
import { createTestApp, testDatabaseUrl, TestApp, v1Headers } from '../support/test-app';

const ROOT = path.resolve(__dirname, '..', '..');

const ERROR_SCHEMA = { $ref: '#/components/schemas/ErrorResponseDto' };
type Paths = OpenAPIObject['paths'];
type Operation = NonNullable<Paths[string]['get']>;
type ParameterObject = { name: string; in: string; required?: boolean; schema?: unknown };
type ResponseObject = { content?: Record<string, { schema?: unknown }> };

function expectErrorResponses(document: OpenAPIObject, route: string, operation: Operation, statuses: number[]): void {
  for (const status of statuses) {
    const response = resolved<ResponseObject | undefined>(document, operation.responses[String(status)]);
    expect({ route, status, schema: response?.content?.['application/json']?.schema }).toEqual({
      route,
      status,
      schema: ERROR_SCHEMA,
    });
  }
}

/**
 * `src/main.ts` as the container starts it, in a Node process of its own, run to its exit: on the
 * test database, so that a setting wrongly accepted fails the test by timing out, not by making an
 * embedded PostgreSQL.
 */
async function runService(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'records-start-'));
  try {
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ['-r', path.join(ROOT, 'test', 'support', 'register-ts.js'), path.join(ROOT, 'src', 'main.ts')],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATA_DIR: dataDir, DATABASE_URL: testDatabaseUrl(), ...env },
        timeout: 30_000,
      },
    );
    return { code: 0, stderr };
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    return { code, stderr };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('operability: health, metrics, docs', () => {
  let t: TestApp;
  let ws: TestWorkspace;

  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_PORT: '0' } });
    ws = await createWorkspace(t.http);
  });
  afterAll(() => t.close());

  describe('health', () => {
    it('GET /health answers 200 without credentials', async () => {
      const response = await t.http.get('/health');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok' });
      new OpenApiValidator(t.document).assert(response);
    });

    it('GET /health/ready answers 200 when the database answers', async () => {
      const response = await t.http.get('/health/ready');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok' });
      new OpenApiValidator(t.document).assert(response);
    });
  });

  describe('metrics', () => {
    it('serves the metrics on METRICS_PORT over HTTP, counting requests made on the API port by route pattern, never by raw id', async () => {
      for (let i = 0; i < 3; i += 1) {
        expect((await t.http.get(`/v1/members/${ws.memberId}`).set(v1Headers(ws.key))).status).toBe(200);
      }
      await t.http.get('/v1/members/mem_01JD6Y3Z8Q0N5V4W7X2C9B1A3E').set(v1Headers(ws.key));
      await t.http.get(`/nope/${ws.memberId}`);

      const response = await fetch(metricsUrl(t));
      expect(response.status).toBe(200);
      const [mediaType, ...parameters] = response.headers.get('content-type')!.split(/;\s*/);
      expect(mediaType).toBe('text/plain');
      expect(parameters).toContain('version=0.0.4');
      const text = await response.text();
      expect(text).toMatch(/^# HELP http_requests_total /m);
      expect(text).toMatch(/^# TYPE http_requests_total counter$/m);
      expect(text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
      const count = (labels: string) =>
        Number(new RegExp(`^http_requests_total\\{${labels.replace(/[{}]/g, '\\$&')}\\} (\\d+)$`, 'm').exec(text)?.[1]);
      expect(count('method="GET",route="/v1/members/:id",status="200"')).toBeGreaterThanOrEqual(3);
      expect(count('method="GET",route="/v1/members/:id",status="404"')).toBeGreaterThanOrEqual(1);
      expect(count('method="GET",route="unmatched",status="404"')).toBeGreaterThanOrEqual(1);
      expect(text).not.toContain(ws.memberId);
      expect(text).not.toContain('mem_01JD6Y3Z8Q0N5V4W7X2C9B1A3E');
      expect(text).not.toContain('{*path}');
      // Process metrics too.
      expect(text).toMatch(/^process_cpu_seconds_total /m);
    });

    it('answers nothing but GET and HEAD /metrics on their port', async () => {
      const base = new URL(metricsUrl(t));
      const other = await fetch(new URL('/', base));
      expect([other.status, await other.text()]).toEqual([404, 'Not found: the metrics are at /metrics\n']);
      const post = await fetch(base, { method: 'POST' });
      expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
      await post.text();
      const head = await fetch(base, { method: 'HEAD' });
      expect([head.status, await head.text()]).toEqual([200, '']);
    });

    it.each(['GET', 'DELETE'] as const)(
      'answers %s /metrics on the API port 404 like any unknown route',
      async (method) => {
        const response = await t.http[method === 'GET' ? 'get' : 'delete']('/metrics');
        expectError(response, 404, 'not_found');
        expect(response.headers.allow).toBeUndefined();
      },
    );

    it('leaves /metrics out of the OpenAPI document', async () => {
      const served = (await t.http.get('/docs-json')).body as OpenAPIObject;
      expect(Object.keys(served.paths).filter((path) => path.includes('metrics'))).toEqual([]);
    });

    it('serves no metrics at all without METRICS_PORT: the app opens no listener', async () => {
      // Every TCP listener of the process, node:http's included, listens through net.Server.
      const listens = jest.spyOn(Server.prototype, 'listen');
      let plain: TestApp | undefined;
      try {
        plain = await createTestApp();
        expect(listens).not.toHaveBeenCalled();
        expect(() => metricsUrl(plain!)).toThrow('serves no metrics');
      } finally {
        listens.mockRestore();
        await plain?.close();
      }
    });

    it('closes the metrics listener when the app closes: its port is free again', async () => {
      const own = await createTestApp({ env: { METRICS_PORT: '0' } });
      let port: number;
      try {
        port = Number(new URL(metricsUrl(own)).port);
        expect((await fetch(metricsUrl(own))).status).toBe(200);
      } finally {
        await own.close();
      }
      await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
      const taker = createServer();
      await new Promise<void>((resolve, reject) => taker.once('error', reject).listen(port, resolve));
      await new Promise((resolve) => taker.close(resolve));
    });

    it('refuses to start with a bad METRICS_PORT, saying which setting and why', async () => {
      expect(await runService({ METRICS_PORT: 'prometheus' })).toEqual({
        code: 1,
        stderr: 'configuration error: METRICS_PORT must be an integer between 0 and 65535, got "prometheus"\n',
      });
    });
  });

  describe('docs', () => {
    it('GET /docs serves Swagger UI', async () => {
      const response = await t.http.get('/docs').redirects(1);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.text).toContain('swagger-ui');
    });

    it.each([
      ['/docs', /^text\/html; charset=utf-8$/],
      ['/docs/swagger-ui-init.js', /^application\/javascript; charset=utf-8$/],
      ['/docs/swagger-ui.css', /^text\/css; charset=utf-8$/],
      ['/docs-yaml', /^text\/yaml; charset=utf-8$/],
      ['/docs-json', /^application\/json; charset=utf-8$/],
    ])('GET %s names the charset of its text (the YAML holds non-ASCII text)', async (path, type) => {
      const response = await t.http.get(path);
      expect([response.status, response.headers['content-type']]).toEqual([200, expect.stringMatching(type)]);
    });

    it('GET /docs-json serves the document the app was built with, a valid OpenAPI 3 document', async () => {
      const response = await t.http.get('/docs-json');
      expect(response.status).toBe(200);
      expect(response.body).toEqual(JSON.parse(JSON.stringify(t.document)));
      expect(response.body.openapi).toMatch(/^3\./);
      await expect(SwaggerParser.validate(structuredClone(response.body))).resolves.toBeDefined();
    });

    it('documents exactly the routes the app serves', async () => {
      const served = servedRoutes(t.app);
      const documented = [...documentOperations(t.document).keys()].sort();
      expect(documented).toEqual(served);
      expect(controllerOperations(t.app).map((operation) => operation.route)).toEqual(served);
      // The foundation's routes at least.
      expect(served).toEqual(
        expect.arrayContaining([
          'GET /health',
          'GET /health/ready',
          'GET /v1/auth/validate',
          'GET /v1/members',
          'GET /v1/members/{id}',
          'POST /admin/v1/workspaces',
          'POST /admin/v1/workspaces/{workspaceId}/members',
          'POST /admin/v1/workspaces/{workspaceId}/api-keys',
          'POST /admin/v1/api-keys/{keyId}/revoke',
        ]),
      );
    });

    it('offers the address the UI was loaded from first, so Try-it-out works at any address', () => {
      expect(t.document.servers?.[0]?.url).toBe('/');
    });

    it('describes every tag, in the order a user meets them, Operator last', () => {
      const tags = (t.document.tags ?? []).map((tag) => tag.name);
      const used = new Set([...documentOperations(t.document).values()].flatMap((operation) => operation.tags ?? []));
      expect([...used].filter((tag) => !tags.includes(tag))).toEqual([]);
      expect((t.document.tags ?? []).filter((tag) => !tag.description)).toEqual([]);
      expect(tags.slice(0, 4)).toEqual(['Key validation', 'Notes', 'Tasks', 'Meetings']);
      expect(tags.at(-1)).toBe('Operator');
    });

    it('puts the right article in summaries and hints no JWT', () => {
      const summaries = [...documentOperations(t.document).values()].map((operation) => operation.summary ?? '');
      expect(summaries).toEqual(
        expect.arrayContaining(['Create an account', 'Retrieve an opportunity', 'Create a note']),
      );
      expect(summaries.filter((summary) => /\ba [aeiou]/i.test(summary))).toEqual([]);
      expect(JSON.stringify(t.document.components?.securitySchemes)).not.toContain('JWT');
    });

    it('spells path parameters {name}, declares each one, and keeps every public path under /v1', async () => {
      for (const [route, operation] of documentOperations(t.document)) {
        const path = route.split(' ')[1];
        expect({ route, colon: path.includes(':') }).toEqual({ route, colon: false });
        const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
        const declared = ((operation.parameters ?? []) as ParameterObject[])
          .filter((parameter) => parameter.in === 'path')
          .map((parameter) => parameter.name);
        expect({ route, declared: declared.sort() }).toEqual({ route, declared: [...names].sort() });
        // The signed file routes are outside /v1 by design (docs/api.md §10).
        expect(path).toMatch(/^\/(v1\/|admin\/v1\/|health(\/|$)|(uploads|downloads)\/\{id\}$)/);
      }
    });

    it('documents every API-key operation under /v1 with bearer security, Service-Version and its errors', async () => {
      const document = t.document;
      expect(document.components?.securitySchemes?.apiKey).toEqual(
        expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      );
      const operations = documentOperations(document);
      const apiKeyOperations = controllerOperations(t.app).filter((operation) => operation.auth === 'apiKey');
      expect(apiKeyOperations.length).toBeGreaterThanOrEqual(3);
      for (const { route, scopes } of apiKeyOperations) {
        expect(route).toMatch(/^[A-Z]+ \/v1\//);
        const operation = operations.get(route)!;
        expect({ route, security: operation.security }).toEqual({ route, security: [{ apiKey: [] }] });
        const version = (operation.parameters ?? [])
          .map((parameter) => resolved<ParameterObject>(document, parameter))
          .find((parameter) => parameter.in === 'header' && parameter.name === 'Service-Version');
        expect({ route, version }).toEqual({
          route,
          version: expect.objectContaining({ required: true, schema: { type: 'string', enum: [SERVICE_VERSION] } }),
        });
        const statuses = [400, 401, 429, 500];
        if (scopes.length > 0) statuses.push(403);
        if (route.includes('{')) statuses.push(404);
        statuses.push(413, 415);
        if (route.startsWith('POST ')) statuses.push(422);
        expectErrorResponses(document, route, operation, statuses);
        expect(
          resolved<ResponseObject | undefined>(document, operation.responses['200'])?.content?.['application/json'],
        ).toBeDefined();
      }
    });

    it('documents operator routes with the admin token and their errors, without Service-Version', async () => {
      const operations = documentOperations(t.document);
      const adminOperations = controllerOperations(t.app).filter((operation) => operation.auth === 'admin');
      expect(adminOperations.length).toBeGreaterThanOrEqual(4);
      for (const { route } of adminOperations) {
        expect(route).toMatch(/^POST \/admin\/v1\//);
        const operation = operations.get(route)!;
        expect({ route, security: operation.security }).toEqual({ route, security: [{ adminToken: [] }] });
        const headers = (operation.parameters ?? [])
          .map((p) => resolved<ParameterObject>(t.document, p))
          .filter((p) => p.in === 'header');
        expect(headers).toEqual([]);
        const statuses = [400, 401, 404, 413, 415, 500];
        if (operation.requestBody) statuses.push(422);
        expectErrorResponses(t.document, route, operation, statuses);
      }
    });

    it('documents the public operations with an empty security requirement', async () => {
      const operations = documentOperations(t.document);
      for (const { route } of controllerOperations(t.app).filter((operation) => operation.auth === 'public')) {
        expect({ route, security: operations.get(route)!.security }).toEqual({ route, security: [] });
      }
    });
  });
});

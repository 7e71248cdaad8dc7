import type { Response } from 'supertest';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { authModeOf, REQUIRED_SCOPES } from '../../src/common/auth/auth.decorators';
import { type ErrorCode, isErrorCode } from '../../src/common/errors/error-codes';
import { IdempotencyInterceptor } from '../../src/common/idempotency/idempotency.interceptor';
import { operationHandlers } from '../../src/common/openapi/operation-handlers';
import { apiSuite } from '../support/api-suite';
import { AnsweredError, undocumentedError } from '../support/documented-errors';
import { expectError } from '../support/errors';
import { documentOperations, resolved } from '../support/openapi';
import { codesThrownIn, reachableFiles, sourceFileOf } from '../support/error-sources';
import { requestOf } from '../support/request-of';
import { v1Headers } from '../support/test-app';

const HOUR = 3_600_000;
const LIST = { fields: { $name: 'Key accounts', $objectType: 'account' } };
const meeting = (extra: Record<string, unknown> = {}) => ({
  fields: {
    $title: 'Weekly',
    $startDate: new Date(Date.now() - 3 * HOUR).toISOString(),
    $endDate: new Date(Date.now() - 2 * HOUR).toISOString(),
  },
  ...extra,
});

function answered(response: Response): AnsweredError {
  const { method, path } = requestOf(response);
  return { method, target: path, status: response.status, code: response.body?.error?.code };
}

/**
 * Each class of error provoked on a representative operation of each kind, and checked against the
 * document that operation is in: what the service answers is what its document lists. (Every e2e
 * suite also checks the errors it provokes when it closes its app: test/support/test-app.ts.)
 */
describe('OpenAPI: the errors an operation answers are the ones it lists', () => {
  const suite = apiSuite();
  const { post } = suite;
  let dataSource: DataSource;
  let sequence = 0;

  beforeAll(() => {
    dataSource = suite.t.app.get(DataSource);
  });

  const withKey = (path: string, body: object, key: string) =>
    suite.t.http.post(path).set(v1Headers(suite.ws.key)).set('Idempotency-Key', key).send(body);

  /**
   * Sends `path` with a new Idempotency-Key while another transaction holds the advisory lock that
   * a first request with that key holds while it runs (IdempotencyRepository.tryLock).
   */
  async function whileKeyInFlight(path: string, body: object): Promise<Response> {
    sequence += 1;
    const key = `in-flight-${process.pid}-${Date.now()}-${sequence}`;
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        `idempotency:${suite.ws.apiKeyId}:${key}`,
      ]);
      return await withKey(path, body, key);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  function expectDocumented(response: Response, status: number, code: string): void {
    expectError(response, status, code);
    expect(undocumentedError(suite.t.document, answered(response))).toBeUndefined();
  }

  const created = async (path: string, body: object): Promise<string> => {
    const response = await post(path, body);
    expect(response.status).toBe(200);
    return response.body.id as string;
  };

  it.each([
    ['POST /v1/lists', () => '/v1/lists', LIST],
    [
      'POST /v1/lists/{id}',
      async () => `/v1/lists/${await created('/v1/lists', LIST)}`,
      { fields: { $name: 'Renamed' } },
    ],
    ['POST /v1/meetings', () => '/v1/meetings', meeting()],
    [
      'POST /v1/meetings/{id}',
      async () => `/v1/meetings/${await created('/v1/meetings', meeting())}`,
      { fields: { $privacySetting: 'METADATA' } },
    ],
  ])('%s: 409 idempotency_conflict while a request with the key runs', async (_name, pathOf, body) => {
    expectDocumented(await whileKeyInFlight(await pathOf(), body), 409, 'idempotency_conflict');
  });

  it('POST /v1/meetings: 409 duplicate_value for a taken externalId', async () => {
    const externalId = `openapi-${process.pid}-${Date.now()}`;
    await created('/v1/meetings', meeting({ externalId }));
    expectDocumented(await post('/v1/meetings', meeting({ externalId })), 409, 'duplicate_value');
  });

  it('POST /v1/lists: 422 idempotency_key_reused and 400 idempotency_key_too_long', async () => {
    const key = `reused-${process.pid}-${Date.now()}`;
    expect((await withKey('/v1/lists', LIST, key)).status).toBe(200);
    expectDocumented(
      await withKey('/v1/lists', { fields: { ...LIST.fields, $name: 'Other' } }, key),
      422,
      'idempotency_key_reused',
    );
    expectDocumented(await withKey('/v1/lists', LIST, 'k'.repeat(256)), 400, 'idempotency_key_too_long');
  });

  it('reports a code an operation answers that its response of that status does not list', () => {
    const read = { method: 'GET', target: '/v1/notes/not_x', status: 409 };
    expect(undocumentedError(suite.t.document, { ...read, code: 'duplicate_slug' })).toBe(
      'GET /v1/notes/{id} answered 409 duplicate_slug, a code its 409 does not list',
    );
    expect(undocumentedError(suite.t.document, { ...read, code: 'conflict' })).toBeUndefined();
    expect(
      undocumentedError(suite.t.document, {
        method: 'POST',
        target: '/admin/v1/object-types',
        status: 409,
        code: 'duplicate_slug',
      }),
    ).toBeUndefined();
  });

  it('every write under /v1 lists what its Idempotency-Key can answer; every /v1 and operator operation, a lost database', () => {
    const problems: string[] = [];
    for (const name of documentOperations(suite.t.document).keys()) {
      const [method, path] = name.split(' ');
      const target = path.replace(/\{[^}]+\}/g, 'x');
      const expected: [number, string][] = /^\/(v1|admin)\//.test(path) ? [[503, 'database_unavailable']] : [];
      if ((method === 'POST' || method === 'DELETE') && path.startsWith('/v1/')) {
        expected.push(
          [409, 'idempotency_conflict'],
          [422, 'idempotency_key_reused'],
          [400, 'idempotency_key_too_long'],
        );
      }
      for (const [status, code] of expected) {
        const problem = undocumentedError(suite.t.document, { method, target, status, code });
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });

  /** The codes an operation's error responses list. */
  function listedCodes(operation: { responses: Record<string, unknown> }): Set<ErrorCode> {
    const codes = new Set<ErrorCode>();
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) < 400) continue;
      const { description } = resolved<{ description: string }>(suite.t.document, response as { description: string });
      for (const [, code] of description.matchAll(/^- `([a-z_]+)`: /gm)) if (isErrorCode(code)) codes.add(code);
    }
    return codes;
  }

  /** The file a controller is written in, or the one of the module it is made in (the records core's). */
  function controllerSource(controller: Function): string | undefined {
    const own = sourceFileOf(controller);
    if (own) return own;
    for (const module of suite.t.app.get(ModulesContainer).values()) {
      if ([...module.controllers.values()].some(({ metatype }) => metatype === controller))
        return sourceFileOf(module.metatype);
    }
    return undefined;
  }

  it('lists on each operation only codes it can answer: its pipeline’s, as its metadata says, and ones its code can throw', () => {
    const handlers = operationHandlers(suite.t.app);
    const problems: string[] = [];
    for (const [name, operation] of documentOperations(suite.t.document)) {
      const path = name.split(' ')[1];
      const { handler, controller } = handlers.get(operation.operationId!)!;
      const auth = authModeOf(handler, controller);
      const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
      const idempotent = interceptors.includes(IdempotencyInterceptor);
      const scoped = ((Reflect.getMetadata(REQUIRED_SCOPES, handler) as unknown[] | undefined) ?? []).length > 0;
      const parsesBody = /^\/(v1|admin)\//.test(path);
      const listed = listedCodes(operation);
      // The first two are what any route may answer (a query parameter the route does not take, what
      // toApiError makes of an unexpected or a database error) and a body's validation, which need not
      // refuse anything of a body whose members are all optional: allowed, not required.
      const pipeline: [ErrorCode[], boolean][] = [
        [['internal_error', 'invalid_parameter', 'conflict', 'duplicate_value', 'database_unavailable'], true],
        [['invalid_api_key', 'rate_limited', 'conflict', 'duplicate_value', 'database_unavailable'], auth !== 'public'],
        [['version_header'], auth === 'apiKey'],
        [['insufficient_scope'], scoped],
        [['idempotency_key_too_long', 'idempotency_conflict', 'idempotency_key_reused'], idempotent],
        [['invalid_json', 'payload_too_large', 'unsupported_media_type'], parsesBody],
        [['unknown_field', 'invalid_type', 'parameter_missing', 'invalid_value'], operation.requestBody !== undefined],
        [['not_found'], path.includes('{') || auth === 'admin'],
      ];
      const allowed = new Set<ErrorCode>();
      for (const [codes, applies] of pipeline) {
        if (!applies) continue;
        codes.forEach((code) => allowed.add(code));
        // What a step of the pipeline answers, every operation it runs on lists.
        if (codes !== pipeline[0][0] && codes !== pipeline[6][0]) {
          for (const code of codes)
            if (!listed.has(code)) problems.push(`${name} does not list ${code}, which its pipeline answers`);
        }
      }
      const source = controllerSource(controller);
      if (!source) {
        problems.push(`${name}: the file of ${controller.name} is unknown`);
        continue;
      }
      const thrown = codesThrownIn(reachableFiles(source));
      for (const code of listed) {
        if (!allowed.has(code) && !thrown.has(code))
          problems.push(`${name} lists ${code}, which neither its pipeline nor its code answers`);
      }
    }
    expect(problems).toEqual([]);
  });
});

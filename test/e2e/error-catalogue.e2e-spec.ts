import { Controller, ForbiddenException, Get } from '@nestjs/common';
import { Endpoint } from '../../src/common/auth/auth.decorators';
import { ApiError } from '../../src/common/errors/api-error';
import { ERROR_CODES, ERROR_TYPES, type ErrorCode, isErrorStatus } from '../../src/common/errors/error-codes';
import { errorStatusDescription, namedErrorCodeSets } from '../../src/common/errors/error-responses';
import { catalogueMismatch, expectError } from '../support/errors';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { StdoutCapture } from '../support/log-capture';
import { OpenApiValidator } from '../support/openapi';
import { createTestApp, TestApp, v1Headers } from '../support/test-app';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Responses = Record<string, { description: string; content?: Record<string, { schema?: unknown }> }>;

/** Routes that throw what the compiler would refuse, as a cast or a library can. */
@Controller('v1/test-probe')
class UncataloguedProbeController {
  @Get('uncatalogued-code')
  @Endpoint({
    summary: 'Test only: throw a code that is not in the catalogue',
    category: 'read',
    errors: ['invalid_state'],
  })
  uncatalogued(): never {
    throw new ApiError(409, 'made_up_code' as never, 'Test probe: a made-up code');
  }

  @Get('code-under-another-status')
  @Endpoint({
    summary: 'Test only: throw a catalogued code under another status',
    category: 'read',
    errors: ['not_found'],
  })
  misplaced(): never {
    throw new ApiError(404, 'invalid_state' as never, 'Test probe: invalid_state is a 409');
  }

  @Get('framework-forbidden')
  @Endpoint({ summary: 'Test only: throw Nest’s ForbiddenException', category: 'read', errors: ['not_permitted'] })
  forbidden(): never {
    throw new ForbiddenException('Test probe: forbidden by the framework');
  }
}

describe('error catalogue', () => {
  let capture: StdoutCapture;
  let t: TestApp;
  let ws: TestWorkspace;
  let openapi: OpenApiValidator;

  beforeAll(async () => {
    capture = new StdoutCapture();
    t = await createTestApp({ env: { LOG_LEVEL: 'error' }, controllers: [UncataloguedProbeController] });
    ws = await createWorkspace(t.http);
    openapi = new OpenApiValidator(t.document);
  });
  afterAll(async () => {
    await t.close();
    capture.restore();
  });

  describe('at run time', () => {
    it.each([
      ['a code the catalogue does not have', 'uncatalogued-code', 'made_up_code'],
      ['a code under another status than its own', 'code-under-another-status', 'invalid_state'],
    ])('answers 500 internal_error for %s, and logs it', async (_case, route, code) => {
      const response = await t.http.get(`/v1/test-probe/${route}`).set(v1Headers(ws.key));
      expectError(response, 500, 'internal_error');
      expect(response.text).not.toContain(code);
      const logged = capture.records.filter((record) => record.msg === 'error code not in the catalogue');
      expect(logged.map((record) => record.code)).toContain(code);
    });

    it('answers a framework exception with the catalogue’s code for its status', async () => {
      const response = await t.http.get('/v1/test-probe/framework-forbidden').set(v1Headers(ws.key));
      expectError(response, 403, 'not_permitted');
      openapi.assert(response);
    });

    it('makes the e2e helpers refuse a body whose code disagrees with the catalogue', () => {
      expect(catalogueMismatch(404, { error: { type: 'not_found', code: 'not_found' } })).toBeUndefined();
      expect(catalogueMismatch(404, { error: { type: 'not_found', code: 'made_up_code' } })).toMatch(
        /not in the error catalogue/,
      );
      expect(catalogueMismatch(404, { error: { type: 'not_found', code: 'invalid_state' } })).toMatch(
        /belongs to status 409/,
      );
      expect(catalogueMismatch(409, { error: { type: 'not_found', code: 'invalid_state' } })).toMatch(
        /is not conflict/,
      );
      expect(catalogueMismatch(404, undefined)).toMatch(/not in the error catalogue/);
    });
  });

  describe('in the OpenAPI document', () => {
    it('enumerates every code and type in the error schema', () => {
      const schemas = t.document.components!.schemas as Record<
        string,
        { properties?: Record<string, unknown>; enum?: unknown }
      >;
      expect(schemas.ErrorDetailDto.properties).toMatchObject({
        type: { allOf: [{ $ref: '#/components/schemas/ErrorType' }] },
        code: { allOf: [{ $ref: '#/components/schemas/ErrorCode' }] },
      });
      expect(schemas.ErrorCode.enum).toEqual(Object.keys(ERROR_CODES));
      expect(schemas.ErrorType.enum).toEqual(Object.values(ERROR_TYPES));
    });

    it('refers every error response of every operation to a shared response that lists codes of its status', () => {
      let checked = 0;
      const shared = (t.document.components!.responses ?? {}) as Responses;
      for (const [path, item] of Object.entries(t.document.paths)) {
        for (const method of HTTP_METHODS) {
          const responses = (item as Record<string, { responses: Record<string, { $ref?: string }> } | undefined>)[
            method
          ]?.responses;
          for (const [status, response] of Object.entries(responses ?? {})) {
            const numeric = Number(status);
            if (numeric < 400) continue;
            const route = `${method.toUpperCase()} ${path} ${status}`;
            const name = response.$ref?.replace('#/components/responses/', '');
            const description = name === undefined ? undefined : shared[name]?.description;
            const codes = [...(description ?? '').matchAll(/^- `([a-z_]+)`: /gm)].map(([, code]) => code as ErrorCode);
            const described =
              isErrorStatus(numeric) && codes.length > 0 && description === errorStatusDescription(numeric, codes);
            const ofStatus = codes.every((code) => ERROR_CODES[code].status === numeric);
            expect({ route, described, ofStatus }).toEqual({ route, described: true, ofStatus: true });
            checked += 1;
          }
        }
      }
      expect(checked).toBeGreaterThan(100);
    });

    it('names a shared error response for a named code set only when it lists all of that set’s codes of its status', () => {
      const shared = (t.document.components!.responses ?? {}) as Responses;
      const named = [...namedErrorCodeSets()];
      let used = 0;
      for (const [name, { description }] of Object.entries(shared)) {
        const [prefix, ...parts] = name.split('_');
        if (!/^E\d{3}$/.test(prefix)) continue;
        const status = Number(prefix.slice(1));
        const listed = new Set([...description.matchAll(/^- `([a-z_]+)`: /gm)].map(([, code]) => code));
        for (const [setName, codes] of named.filter(([setName]) => parts.includes(setName))) {
          const ofStatus = codes.filter((code) => ERROR_CODES[code].status === status);
          expect({ name, setName, missing: ofStatus.filter((code) => !listed.has(code)) }).toEqual({
            name,
            setName,
            missing: [],
          });
          expect(ofStatus.length).toBeGreaterThanOrEqual(2);
          used += 1;
        }
      }
      expect(used).toBeGreaterThan(0);
    });

    it('lists on an operation only the codes it can answer: no slug conflict on a read', () => {
      const read = t.document.paths['/v1/notes/{id}'].get!.responses;
      const codesOf = (status: string) => {
        const name = (read[status] as { $ref: string }).$ref.replace('#/components/responses/', '');
        const { description } = t.document.components!.responses![name] as { description: string };
        return [...description.matchAll(/^- `([a-z_]+)`: /gm)].map(([, code]) => code);
      };
      expect(codesOf('409')).toEqual(['duplicate_value', 'conflict']);
      expect(codesOf('404')).toEqual(['not_found']);
    });
  });
});

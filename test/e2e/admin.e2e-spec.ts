import type { Response } from 'supertest';
import { SCOPES } from '../../src/common/auth/scopes';
import { expectError } from '../support/errors';
import { createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { adminHeaders, createTestApp, TestApp, v1Headers } from '../support/test-app';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
const UNKNOWN_WORKSPACE = 'wks_01JD6Y3Z8Q0N5V4W7X2C9B1A3E';

describe('operator API (/admin/v1)', () => {
  let t: TestApp;
  let openapi: OpenApiValidator;
  let ws: TestWorkspace;

  /** Sends an operator request and checks the response against the OpenAPI document. */
  const admin = async (
    path: string,
    body?: unknown,
    headers: Record<string, string> = adminHeaders(),
  ): Promise<Response> => {
    const request = t.http.post(path).set(headers);
    const response = await (body === undefined ? request : request.send(body as object));
    openapi.assert(response);
    return response;
  };

  beforeAll(async () => {
    t = await createTestApp();
    openapi = new OpenApiValidator(t.document);
    ws = await createWorkspace(t.http);
  });
  afterAll(() => t.close());

  describe('authentication', () => {
    const routes = () =>
      [
        ['/admin/v1/workspaces', { name: 'x' }],
        [`/admin/v1/workspaces/${ws.workspaceId}/members`, { email: 'x@example.com' }],
        [`/admin/v1/workspaces/${ws.workspaceId}/api-keys`, { memberId: ws.memberId, scopes: ['*'] }],
        [`/admin/v1/api-keys/${ws.apiKeyId}/revoke`, undefined],
      ] as const;

    it.each([
      ['no Authorization header', {}],
      ['a wrong token', { Authorization: 'Bearer not-the-admin-token-at-all' }],
      ['the token with another scheme', { Authorization: `Basic ${adminHeaders().Authorization.slice(7)}` }],
      ['an empty bearer', { Authorization: 'Bearer ' }],
    ])('answers 401 invalid_api_key for %s, on every route', async (_case, headers) => {
      for (const [path, body] of routes()) expectError(await admin(path, body, headers), 401, 'invalid_api_key');
      // Nothing happened: the key still works.
      expect((await t.http.get('/v1/auth/validate').set(v1Headers(ws.key))).status).toBe(200);
    });

    it('does not take an API key, even one with every scope', async () => {
      expectError(
        await admin('/admin/v1/workspaces', { name: 'x' }, { Authorization: `Bearer ${ws.key}` }),
        401,
        'invalid_api_key',
      );
    });

    it('needs no Service-Version header', async () => {
      const response = await admin('/admin/v1/workspaces', { name: 'Unversioned' });
      expect(response.status).toBe(200);
    });
  });

  describe('POST /admin/v1/workspaces', () => {
    it('creates a workspace', async () => {
      const before = Date.now();
      const response = await admin('/admin/v1/workspaces', { name: 'Acme Corp' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: expect.stringMatching(new RegExp(`^wks_${ULID}$`)),
        name: 'Acme Corp',
        createdAt: expect.stringMatching(ISO_DATE),
        requirePreconditions: false,
      });
      expect(Date.parse(response.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    });

    it.each([
      ['absent', {}, 422, 'parameter_missing'],
      ['null', { name: null }, 422, 'parameter_missing'],
      ['a number', { name: 123 }, 400, 'invalid_type'],
      ['an array', { name: ['Acme'] }, 400, 'invalid_type'],
      ['empty', { name: '' }, 422, 'invalid_value'],
      ['201 characters', { name: 'x'.repeat(201) }, 422, 'invalid_value'],
    ])('refuses a name that is %s', async (_case, body, status, code) => {
      expectError(await admin('/admin/v1/workspaces', body), status, code, 'name');
    });

    it('answers 400 unknown_field for a member it does not define', async () => {
      expectError(await admin('/admin/v1/workspaces', { name: 'Acme', plan: 'pro' }), 400, 'unknown_field', 'plan');
    });
  });

  describe('POST /admin/v1/workspaces/{workspaceId}/members', () => {
    const path = () => `/admin/v1/workspaces/${ws.workspaceId}/members`;

    it('creates a member and answers the member resource', async () => {
      const email = `grace-${Date.now()}@example.com`;
      const response = await admin(path(), { email, firstName: 'Grace', lastName: 'Hopper', role: 'admin' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: expect.stringMatching(new RegExp(`^mem_${ULID}$`)),
        createdAt: expect.stringMatching(ISO_DATE),
        updatedAt: null,
        httpLink: null,
        fields: {
          $email: { value: email, valueType: 'EMAIL' },
          $name: { value: { firstName: 'Grace', lastName: 'Hopper' }, valueType: 'FULL_NAME' },
          $role: { value: 'admin', valueType: 'TEXT' },
        },
        relationships: {},
        externalId: null,
      });
      const read = await t.http.get(`/v1/members/${response.body.id}`).set(v1Headers(ws.key));
      expect(read.body).toEqual(response.body);
    });

    it('defaults the role to member and the name to null', async () => {
      const response = await admin(path(), { email: `plain-${Date.now()}@example.com` });
      expect(response.status).toBe(200);
      expect(response.body.fields.$role).toEqual({ value: 'member', valueType: 'TEXT' });
      expect(response.body.fields.$name).toEqual({ value: null, valueType: 'FULL_NAME' });
    });

    it.each([
      ['email absent', { firstName: 'A' }, 422, 'parameter_missing', 'email'],
      ['email null', { email: null }, 422, 'parameter_missing', 'email'],
      ['email a number', { email: 5 }, 400, 'invalid_type', 'email'],
      ['email not an address', { email: 'not-an-email' }, 422, 'invalid_value', 'email'],
      ['email with two addresses', { email: 'a@example.com, b@example.com' }, 422, 'invalid_value', 'email'],
      ['role outside the enum', { email: 'r@example.com', role: 'owner' }, 400, 'invalid_type', 'role'],
      ['role a number', { email: 'r@example.com', role: 1 }, 400, 'invalid_type', 'role'],
      ['firstName a number', { email: 'f@example.com', firstName: 5 }, 400, 'invalid_type', 'firstName'],
      ['lastName empty', { email: 'l@example.com', lastName: '' }, 422, 'invalid_value', 'lastName'],
      ['an unknown member', { email: 'u@example.com', phone: '+1' }, 400, 'unknown_field', 'phone'],
    ])('refuses %s', async (_case, body, status, code, param) => {
      expectError(await admin(path(), body), status, code, param);
    });

    it('answers 409 duplicate_value for an email already in the workspace, whatever its case', async () => {
      const email = `Dup-${Date.now()}@Example.com`;
      expect((await admin(path(), { email })).status).toBe(200);
      expectError(await admin(path(), { email }), 409, 'duplicate_value', 'email');
      expectError(await admin(path(), { email: email.toLowerCase() }), 409, 'duplicate_value', 'email');
      expectError(await admin(path(), { email: email.toUpperCase() }), 409, 'duplicate_value', 'email');
      // Another workspace may have a member with that email.
      const other = await createWorkspace(t.http);
      expect((await admin(`/admin/v1/workspaces/${other.workspaceId}/members`, { email })).status).toBe(200);
    });

    it('creates one member when the same new email is sent concurrently', async () => {
      const email = `race-${Date.now()}@example.com`;
      const responses = await Promise.all(Array.from({ length: 5 }, () => admin(path(), { email })));
      expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
      for (const response of responses.filter((r) => r.status !== 200)) expectError(response, 409, 'duplicate_value');
    });

    it.each([
      ['an unknown workspace', UNKNOWN_WORKSPACE],
      ['a malformed workspace id', 'acme'],
      ['an id of another kind', 'mem_01JD6Y3Z8Q0N5V4W7X2C9B1A3E'],
    ])('answers 404 not_found for %s', async (_case, workspaceId) => {
      expectError(
        await admin(`/admin/v1/workspaces/${workspaceId}/members`, { email: 'x@example.com' }),
        404,
        'not_found',
      );
    });
  });

  describe('POST /admin/v1/workspaces/{workspaceId}/api-keys', () => {
    const path = () => `/admin/v1/workspaces/${ws.workspaceId}/api-keys`;

    it('issues a key with every scope for ["*"], usable at once', async () => {
      const response = await admin(path(), { memberId: ws.memberId, scopes: ['*'], name: 'ci' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: expect.stringMatching(new RegExp(`^key_${ULID}$`)),
        key: expect.stringMatching(/^sk_[0-9A-Za-z]{40,}$/),
        scopes: ['*'],
        memberId: ws.memberId,
        createdAt: expect.stringMatching(ISO_DATE),
      });
      const validate = await t.http.get('/v1/auth/validate').set(v1Headers(response.body.key));
      expect(validate.status).toBe(200);
      expect(validate.body.scopes).toEqual([...SCOPES]);
    });

    it('issues a key with exactly the scopes listed (duplicates once)', async () => {
      const response = await admin(path(), {
        memberId: ws.memberId,
        scopes: ['members:read', 'notes:read', 'members:read'],
      });
      expect(response.status).toBe(200);
      expect(response.body.scopes).toEqual(['members:read', 'notes:read']);
      const validate = await t.http.get('/v1/auth/validate').set(v1Headers(response.body.key));
      expect(validate.body.scopes.sort()).toEqual(['members:read', 'notes:read']);
      expect((await t.http.get('/v1/members').set(v1Headers(response.body.key))).status).toBe(200);
    });

    it('issues distinct random secrets', async () => {
      const keys = await Promise.all(
        Array.from(
          { length: 5 },
          async () => (await admin(path(), { memberId: ws.memberId, scopes: ['*'] })).body.key as string,
        ),
      );
      expect(new Set(keys).size).toBe(5);
      // Drawn from all of base62: five keys of 43 characters show about 60 distinct symbols.
      expect(new Set(keys.map((key) => key.slice(3)).join('')).size).toBeGreaterThan(40);
    });

    it.each([
      ['memberId absent', () => ({ scopes: ['*'] }), 422, 'parameter_missing', 'memberId'],
      ['memberId a number', () => ({ memberId: 7, scopes: ['*'] }), 400, 'invalid_type', 'memberId'],
      ['scopes absent', () => ({ memberId: ws.memberId }), 422, 'parameter_missing', 'scopes'],
      ['scopes a string', () => ({ memberId: ws.memberId, scopes: 'notes:read' }), 400, 'invalid_type', 'scopes'],
      [
        'an unknown scope',
        () => ({ memberId: ws.memberId, scopes: ['notes:read', 'notes:delete'] }),
        400,
        'invalid_type',
        'scopes',
      ],
      ['a scope that is not a string', () => ({ memberId: ws.memberId, scopes: [1] }), 400, 'invalid_type', 'scopes'],
      ['name a number', () => ({ memberId: ws.memberId, scopes: ['*'], name: 1 }), 400, 'invalid_type', 'name'],
      [
        'an unknown member',
        () => ({ memberId: ws.memberId, scopes: ['*'], expiresAt: 'never' }),
        400,
        'unknown_field',
        'expiresAt',
      ],
    ])('refuses %s', async (_case, body, status, code, param) => {
      expectError(await admin(path(), body()), status, code, param);
    });

    it('answers 422 for a member of another workspace, and for an unknown or malformed member id', async () => {
      const other = await createWorkspace(t.http);
      const stranger = await createMember(t.http, other.workspaceId);
      for (const memberId of [stranger.id, other.memberId, 'mem_01JD6Y3Z8Q0N5V4W7X2C9B1A3E', 'nobody']) {
        const response = await admin(path(), { memberId, scopes: ['*'] });
        expectError(response, 422, 'relationship_entity_missing', 'memberId');
      }
    });

    it('answers 404 not_found for an unknown workspace', async () => {
      expectError(
        await admin(`/admin/v1/workspaces/${UNKNOWN_WORKSPACE}/api-keys`, { memberId: ws.memberId, scopes: ['*'] }),
        404,
        'not_found',
      );
    });
  });

  describe('POST /admin/v1/api-keys/{keyId}/revoke', () => {
    it.each([
      ['an unknown key', 'key_01JD6Y3Z8Q0N5V4W7X2C9B1A3E'],
      ['a malformed key id', 'sk_abc'],
    ])('answers 404 not_found for %s', async (_case, keyId) => {
      expectError(await admin(`/admin/v1/api-keys/${keyId}/revoke`), 404, 'not_found');
    });
  });
});

describe('operator API without ADMIN_TOKEN', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_TOKEN: '' } });
  });
  afterAll(() => t.close());

  it('is disabled: every operator route answers 404, whatever the token', async () => {
    for (const headers of [{}, adminHeaders()]) {
      expectError(await t.http.post('/admin/v1/workspaces').set(headers).send({ name: 'x' }), 404, 'not_found');
    }
  });
});

import { applyDecorators, HttpCode, SetMetadata, Type, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { ErrorCode } from '../errors/error-codes';
import { ApiErrors, DATABASE_ERRORS } from '../errors/error-responses';
import { CONDITIONAL_ROUTE, type ConditionalRoute } from '../http/entity-tags';
import { IdempotencyInterceptor, MAX_IDEMPOTENCY_KEY_LENGTH } from '../idempotency/idempotency.interceptor';
import { SERVICE_VERSION } from '../versioning/service-version';
import { RATE_CATEGORY, type RateCategory } from '../throttling/rate-category';
import type { Scope } from './scopes';

export type AuthMode = 'apiKey' | 'admin' | 'public';
export const AUTH_MODE = 'auth:mode';
export const REQUIRED_SCOPES = 'auth:scopes';
export const API_KEY_SECURITY = 'apiKey';
export const ADMIN_SECURITY = 'adminToken';

/**
 * A route's mode: its handler's, else its controller's, else an API key. AuthGuard enforces it and
 * the OpenAPI document states it (security), from this one reading.
 */
export function authModeOf(handler: Function, controller: Function): AuthMode {
  return (Reflect.getMetadata(AUTH_MODE, handler) ??
    Reflect.getMetadata(AUTH_MODE, controller) ??
    'apiKey') as AuthMode;
}

/** No credentials: health, docs and the signed file routes. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(AUTH_MODE, 'public');

/**
 * What the idempotency interceptor answers (docs/api.md §5): 400 for an empty or too long key, 409
 * while a request with the key still runs, 422 for the key sent with another method, path or body.
 */
const IDEMPOTENCY_ERRORS = [
  'invalid_parameter',
  'idempotency_key_too_long',
  'idempotency_conflict',
  'idempotency_key_reused',
] as const satisfies readonly ErrorCode[];

/** What a conditional write answers besides its own: a malformed header, a precondition that fails or is required. */
const CONDITION_ERRORS = [
  'invalid_parameter',
  'precondition_failed',
  'precondition_required',
] as const satisfies readonly ErrorCode[];

const ENTITY_TAG_HEADER = {
  description: 'The record’s strong entity tag, `"v<version>"` (a redacted meeting’s is `"v<version>-metadata"`)',
  schema: { type: 'string', example: '"v3"' },
};

/** The request headers of a conditional route, and for a read its 304. */
function conditionHeaders(kind: ConditionalRoute): MethodDecorator[] {
  const ifMatch = ApiHeader({
    name: 'If-Match',
    required: false,
    description: 'Write only if the record is at one of these ETags (`*`: if it exists); else 412, nothing written',
    schema: { type: 'string', example: '"v3"' },
  });
  const ifNoneMatch = (description: string) =>
    ApiHeader({ name: 'If-None-Match', required: false, description, schema: { type: 'string', example: '"v3"' } });
  if (kind === 'create') return [];
  if (kind === 'update' || kind === 'delete') return [ifMatch];
  if (kind === 'upsert') return [ifMatch, ifNoneMatch('`*`: create only; 412 when a record matches')];
  return [
    ifNoneMatch('304 without a body when the record’s ETag is one of these'),
    ApiResponse({
      status: 304,
      description: 'Not modified: the ETag sent is the record’s',
      headers: { ETag: ENTITY_TAG_HEADER },
    }),
  ];
}

/** What AuthGuard answers: a bad credential, and too many of them from one client (AuthFailureLimiter). */
const AUTHENTICATION_ERRORS = ['invalid_api_key', 'rate_limited'] as const satisfies readonly ErrorCode[];

/**
 * Operator routes: `Authorization: Bearer <ADMIN_TOKEN>`, no Service-Version, no scopes. Without
 * ADMIN_TOKEN they are not there (404); each runs SQL.
 */
export function AdminRoute(options: {
  summary: string;
  response?: Type<unknown>;
  /** Codes the handler answers besides the pipeline's. */
  errors?: readonly ErrorCode[];
}): MethodDecorator {
  return applyDecorators(
    SetMetadata(AUTH_MODE, 'admin'),
    HttpCode(200),
    ApiSecurity(ADMIN_SECURITY),
    ApiOperation({ summary: options.summary }),
    ApiOkResponse({ type: options.response }),
    // not_found: every operator route while ADMIN_TOKEN is unset.
    ApiErrors([...AUTHENTICATION_ERRORS, 'not_found', ...DATABASE_ERRORS, ...(options.errors ?? [])]),
  );
}

/**
 * A public `/v1` operation: API key required, `Service-Version` checked, the listed scopes
 * (all of them) required, and counted in one rate-limit bucket; a write is idempotent. Also
 * documents all of that, with the statuses each of these steps answers, so that what the operation
 * lists follows from what makes it behave so.
 */
export function Endpoint(options: {
  summary: string;
  category: RateCategory;
  scopes?: Scope[];
  /** The 200 response; omit when the handler documents it itself (e.g. a paged list). */
  response?: Type<unknown>;
  /** Codes the handler answers besides the ones of the steps in front of it (authentication, scopes…). */
  errors?: readonly ErrorCode[];
  /**
   * A route of one record, list or webhook endpoint (docs/api.md §7, "Conditional requests"): see ConditionalRoute.
   */
  conditional?: ConditionalRoute;
}): MethodDecorator {
  const scopes = options.scopes ?? [];
  const write = options.category === 'write';
  // The key, looked up in PostgreSQL, then Service-Version, the scopes, the rate limit.
  const errors: ErrorCode[] = [
    ...AUTHENTICATION_ERRORS,
    ...DATABASE_ERRORS,
    'version_header',
    ...(scopes.length ? (['insufficient_scope'] as const) : []),
  ];
  if (write) errors.push(...IDEMPOTENCY_ERRORS);
  if (options.conditional === 'read') errors.push('invalid_parameter');
  if (options.conditional && options.conditional !== 'read' && options.conditional !== 'create') {
    errors.push(...CONDITION_ERRORS);
  }
  const decorators: MethodDecorator[] = [
    SetMetadata(AUTH_MODE, 'apiKey'),
    HttpCode(200), // docs/api.md §1: every success is 200, creates included
    SetMetadata(REQUIRED_SCOPES, scopes),
    SetMetadata(RATE_CATEGORY, options.category),
    ApiBearerAuth(API_KEY_SECURITY),
    ApiHeader({ name: 'Service-Version', required: true, schema: { type: 'string', enum: [SERVICE_VERSION] } }),
    ApiOperation({
      summary: options.summary,
      description: `Scopes: ${scopes.length ? scopes.join(', ') : 'none'}. Rate limit: ${options.category}.`,
    }),
    ApiErrors([...errors, ...(options.errors ?? [])]),
  ];
  if (options.response) {
    const headers = options.conditional && options.conditional !== 'delete' ? { ETag: ENTITY_TAG_HEADER } : undefined;
    decorators.push(ApiOkResponse({ type: options.response, headers }));
  }
  // PreconditionsGuard reads it; the adapter's reply sets the ETag of every answer, a replayed one too.
  if (options.conditional)
    decorators.push(SetMetadata(CONDITIONAL_ROUTE, options.conditional), ...conditionHeaders(options.conditional));
  if (write) {
    // Every /v1 write is a POST or a DELETE (docs/api.md §5); only they pay for the idempotency interceptor.
    decorators.push(
      UseInterceptors(IdempotencyInterceptor),
      ApiHeader({
        name: 'Idempotency-Key',
        required: false,
        description: 'Replays the first success for 24 h; a different body is 422, a concurrent repeat 409',
        schema: { type: 'string', maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
      }),
    );
  }
  return applyDecorators(...decorators);
}

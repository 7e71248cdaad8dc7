/**
 * The public error codes: every `code` an error body can carry, with its status and type
 * (docs/api.md §2 lists the same table; a unit spec keeps the two equal). Clients switch on these
 * codes, so a new one is a contract change: add it here and to the page, in the same commit.
 * `ApiError` accepts only a code listed here under the status it is thrown with (checked by `tsc`),
 * and `sendError` answers 500 for anything that slipped past the compiler.
 */

/** One type per status: the `type` of an error body names the status's class. */
export const ERROR_TYPES = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  417: 'expectation_failed',
  422: 'unprocessable_content',
  428: 'precondition_required',
  429: 'too_many_requests',
  431: 'request_header_fields_too_large',
  500: 'internal_server_error',
  503: 'service_unavailable',
} as const;

export type ErrorStatus = keyof typeof ERROR_TYPES;
export type ErrorType = (typeof ERROR_TYPES)[ErrorStatus];

export function isErrorStatus(status: number): status is ErrorStatus {
  return Object.hasOwn(ERROR_TYPES, status);
}

/** A catalogue entry whose type is the one of its status (a mismatch fails to compile). */
type CatalogueEntry = {
  [S in ErrorStatus]: { readonly status: S; readonly type: (typeof ERROR_TYPES)[S]; readonly description: string };
}[ErrorStatus];

export const ERROR_CODES = {
  invalid_json: {
    status: 400,
    type: 'bad_request',
    description: 'The body is not valid JSON, not an object, or nested more than 64 levels deep.',
  },
  unknown_field: {
    status: 400,
    type: 'bad_request',
    description: 'A field or body member the type or route does not define (`__proto__` and `constructor` included).',
  },
  unknown_relationship: { status: 400, type: 'bad_request', description: 'A relationship the type does not define.' },
  invalid_type: {
    status: 400,
    type: 'bad_request',
    description: 'A value of the wrong JSON type, or outside an enum or option set.',
  },
  invalid_operation: {
    status: 400,
    type: 'bad_request',
    description: 'A relationship operation the route does not allow.',
  },
  invalid_parameter: {
    status: 400,
    type: 'bad_request',
    description:
      'A bad query parameter: `limit` outside 1..25, `offset` below 0, or any query parameter on a route that takes none.',
  },
  invalid_filter: { status: 400, type: 'bad_request', description: 'A filter the type or field cannot apply.' },
  version_header: {
    status: 400,
    type: 'bad_request',
    description: 'Service-Version is missing or not the supported version.',
  },
  idempotency_key_too_long: { status: 400, type: 'bad_request', description: 'Idempotency-Key is too long.' },
  malformed_request: {
    status: 400,
    type: 'bad_request',
    description:
      'Not HTTP/1.1 as Node’s parser accepts it: an unknown method, a bad Content-Length, Content-Length with Transfer-Encoding, a bad chunk.',
  },
  invalid_api_key: {
    status: 401,
    type: 'unauthorized',
    description: 'Authorization is missing or malformed, or names an unknown or revoked key.',
  },
  insufficient_scope: {
    status: 403,
    type: 'forbidden',
    description: 'The API key lacks a scope the operation requires.',
  },
  not_permitted: { status: 403, type: 'forbidden', description: 'The member may not do this.' },
  invalid_signature: {
    status: 403,
    type: 'forbidden',
    description: 'A signed file URL this service did not issue, or one past its expiry.',
  },
  not_found: {
    status: 404,
    type: 'not_found',
    description: 'An unknown route, id or type slug, an id of the wrong shape, or an id of another workspace.',
  },
  method_not_allowed: {
    status: 405,
    type: 'method_not_allowed',
    description: 'A known path with another method; `Allow` lists the methods it takes.',
  },
  request_timeout: {
    status: 408,
    type: 'request_timeout',
    description: 'The request line, headers or body did not arrive in time.',
  },
  invalid_state: { status: 409, type: 'conflict', description: 'The resource is not in a state that allows this.' },
  idempotency_conflict: {
    status: 409,
    type: 'conflict',
    description: 'A request with this Idempotency-Key is still running.',
  },
  duplicate_value: { status: 409, type: 'conflict', description: 'A value that must be unique is already taken.' },
  ambiguous_match: {
    status: 409,
    type: 'conflict',
    description: 'An upsert’s match value (of a multi-valued unique field) is held by more than one record.',
  },
  duplicate_slug: {
    status: 409,
    type: 'conflict',
    description: 'The slug or key is already used in this workspace, or by a system type.',
  },
  conflict: {
    status: 409,
    type: 'conflict',
    description: 'The database aborted the request because it collided with a concurrent one: retry it.',
  },
  cursor_expired: {
    status: 410,
    type: 'gone',
    description:
      'A feed cursor older than the events kept: events after it may have been removed. `resyncCursor` is the feed’s present end.',
  },
  precondition_failed: {
    status: 412,
    type: 'precondition_failed',
    description:
      'The record is not as `If-Match` or `If-None-Match` (or a batch input’s `ifMatch`) requires: nothing was written. `ETag` is its current tag.',
  },
  precondition_required: {
    status: 428,
    type: 'precondition_required',
    description:
      'The workspace requires a precondition of this write (requirePreconditions): send the record’s ETag as `If-Match` (or, on an upsert, `If-None-Match: *` to create only).',
  },
  payload_too_large: {
    status: 413,
    type: 'payload_too_large',
    description: 'The body is larger than 1 MiB, or an upload is longer than the file’s sizeBytes.',
  },
  unsupported_media_type: {
    status: 415,
    type: 'unsupported_media_type',
    description: 'The body is not UTF-8 application/json, or an upload’s Content-Type is not the signed one.',
  },
  expectation_failed: {
    status: 417,
    type: 'expectation_failed',
    description: 'An `Expect` header other than `100-continue`.',
  },
  parameter_missing: {
    status: 422,
    type: 'unprocessable_content',
    description: 'A required field, relationship or body member is absent or null.',
  },
  read_only_field: {
    status: 422,
    type: 'unprocessable_content',
    description: 'A value the service maintains or fixes.',
  },
  invalid_value: { status: 422, type: 'unprocessable_content', description: 'A well-typed value a rule refuses.' },
  object_type_mismatch: {
    status: 422,
    type: 'unprocessable_content',
    description: 'Records of another object type than the list or relationship holds.',
  },
  file_constraint: {
    status: 422,
    type: 'unprocessable_content',
    description: 'A MIME type or size the file’s purpose does not allow.',
  },
  checksum_mismatch: {
    status: 422,
    type: 'unprocessable_content',
    description: 'The uploaded bytes do not have the given checksum.',
  },
  size_mismatch: {
    status: 422,
    type: 'unprocessable_content',
    description: 'The uploaded bytes are missing or not the announced size.',
  },
  relationship_entity_missing: {
    status: 422,
    type: 'unprocessable_content',
    description: 'An id that names no record (or member, or file) of this workspace.',
  },
  relationship_write_limit_exceeded: {
    status: 422,
    type: 'unprocessable_content',
    description: 'More relationship ids in one request than allowed.',
  },
  idempotency_key_reused: {
    status: 422,
    type: 'unprocessable_content',
    description: 'The Idempotency-Key was used with another method, path or body.',
  },
  rate_limited: {
    status: 429,
    type: 'too_many_requests',
    description: 'A rate limit is exhausted (or too many failed authentications); see Retry-After.',
  },
  header_too_large: {
    status: 431,
    type: 'request_header_fields_too_large',
    description: 'The request line and headers are larger than 16 KiB.',
  },
  internal_error: {
    status: 500,
    type: 'internal_server_error',
    description: 'Never expected; the body carries no stack trace or SQL.',
  },
  database_unavailable: {
    status: 503,
    type: 'service_unavailable',
    description: 'The database cannot be reached or the connection was lost mid-request; see Retry-After.',
  },
  too_many_waiters: {
    status: 503,
    type: 'service_unavailable',
    description: 'The instance holds as many waiting feed reads (`wait`) as it may; see Retry-After.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes the catalogue allows under status `S` (under any of them when `S` is a union). */
export type CodeOf<S extends ErrorStatus> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C]['status'] extends S ? C : never;
}[ErrorCode];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

/** The catalogue's codes of one status, in catalogue order. */
export function codesOf<S extends ErrorStatus>(status: S): CodeOf<S>[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => ERROR_CODES[code].status === status) as CodeOf<S>[];
}

/**
 * The code a framework exception (Nest's `HttpException`, not an `ApiError`) of a status is
 * answered with: the catalogue's most general code of that status. Other statuses of such an
 * exception are unexpected (a 500).
 */
export const FRAMEWORK_EXCEPTION_CODES: { readonly [S in ErrorStatus]?: CodeOf<S> } = {
  400: 'invalid_parameter',
  401: 'invalid_api_key',
  403: 'not_permitted',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'invalid_value',
  429: 'rate_limited',
};

/**
 * The public error table of the contract, written out independently of the service's own code so
 * that a test notices when the service answers a status, type or code a client cannot switch on.
 * Every error body is `{ "error": { "type", "code", "message", "param"? } }`, and each status has
 * one type and a closed list of codes. Two codes come from the README's API notes rather than the
 * original table: 403 `invalid_signature` (the signed upload and download URLs) and 409
 * `conflict` (PostgreSQL aborted the request against a concurrent one: retry it). Two statuses come
 * from conditional requests (RFC 9110 §13, RFC 6585 §3): 412 `precondition_failed` and 428
 * `precondition_required`.
 */
export const PUBLIC_ERRORS: Readonly<Record<number, { type: string; codes: readonly string[] }>> = {
  400: {
    type: 'bad_request',
    codes: [
      'invalid_json',
      'unknown_field',
      'unknown_relationship',
      'invalid_type',
      'invalid_operation',
      'invalid_parameter',
      'invalid_filter',
      'version_header',
      'idempotency_key_too_long',
    ],
  },
  401: { type: 'unauthorized', codes: ['invalid_api_key'] },
  403: { type: 'forbidden', codes: ['insufficient_scope', 'not_permitted', 'invalid_signature'] },
  404: { type: 'not_found', codes: ['not_found'] },
  405: { type: 'method_not_allowed', codes: ['method_not_allowed'] },
  409: {
    type: 'conflict',
    codes: ['invalid_state', 'idempotency_conflict', 'duplicate_value', 'duplicate_slug', 'conflict'],
  },
  412: { type: 'precondition_failed', codes: ['precondition_failed'] },
  413: { type: 'payload_too_large', codes: ['payload_too_large'] },
  415: { type: 'unsupported_media_type', codes: ['unsupported_media_type'] },
  422: {
    type: 'unprocessable_content',
    codes: [
      'parameter_missing',
      'read_only_field',
      'invalid_value',
      'object_type_mismatch',
      'file_constraint',
      'checksum_mismatch',
      'size_mismatch',
      'relationship_entity_missing',
      'relationship_write_limit_exceeded',
      'idempotency_key_reused',
    ],
  },
  428: { type: 'precondition_required', codes: ['precondition_required'] },
  429: { type: 'too_many_requests', codes: ['rate_limited'] },
  500: { type: 'internal_server_error', codes: ['internal_error'] },
  503: { type: 'service_unavailable', codes: ['database_unavailable'] },
};

const ERROR_MEMBERS = ['type', 'code', 'message', 'param'];

/**
 * What is wrong with an error response against the public table: an empty list when the status is
 * in the table and the body is exactly the error body with that status's type and one of its codes.
 */
export function publicErrorProblems(status: number, contentType: string | undefined, body: unknown): string[] {
  const entry = PUBLIC_ERRORS[status];
  if (!entry) return [`status ${status} is not in the public error table`];
  if (!/^application\/json\b/.test(contentType ?? '')) return [`content-type ${contentType ?? '(none)'} is not JSON`];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return ['the body is not a JSON object'];
  if (Object.keys(body).join() !== 'error')
    return [`the body has members ${JSON.stringify(Object.keys(body))}, not just "error"`];
  const error = (body as { error: unknown }).error;
  if (error === null || typeof error !== 'object' || Array.isArray(error)) return ['"error" is not an object'];
  const { type, code, message, param } = error as Record<string, unknown>;
  const problems: string[] = [];
  const extra = Object.keys(error).filter((member) => !ERROR_MEMBERS.includes(member));
  if (extra.length > 0) problems.push(`error has members beyond type, code, message, param: ${JSON.stringify(extra)}`);
  if (type !== entry.type) problems.push(`type ${JSON.stringify(type)} is not ${entry.type} for status ${status}`);
  if (typeof code !== 'string' || !entry.codes.includes(code)) {
    problems.push(`code ${JSON.stringify(code)} is not a public code of status ${status} (${entry.codes.join(', ')})`);
  }
  if (typeof message !== 'string') problems.push('message is not a string');
  if (param !== undefined && typeof param !== 'string') problems.push('param is present but not a string');
  return problems;
}

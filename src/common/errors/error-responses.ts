import { ERROR_CODES, ERROR_TYPES, type ErrorCode, type ErrorStatus } from './error-codes';

/** Where a handler's `ApiErrors` codes are kept, for the OpenAPI document to list (documentErrorResponses). */
export const ERROR_CODES_METADATA = 'openapi:error-codes';

const NAMED_CODE_SETS = new Map<string, readonly ErrorCode[]>();

/**
 * `codes`, a set a step of the pipeline answers as one (a body's validation, a record write's
 * checks…), under a name the OpenAPI document uses for it: a shared error response whose codes
 * include all of a set's codes of its status is named for the set instead of for each code.
 */
export function namedErrorCodes<const Codes extends readonly ErrorCode[]>(name: string, codes: Codes): Codes {
  if (NAMED_CODE_SETS.has(name)) throw new Error(`error code set ${name} is named twice`);
  NAMED_CODE_SETS.set(name, codes);
  return codes;
}

/** The named code sets (namedErrorCodes), by name. */
export function namedErrorCodeSets(): ReadonlyMap<string, readonly ErrorCode[]> {
  return NAMED_CODE_SETS;
}

/** The catalogue's codes in catalogue order, each once. */
export function catalogueOrder(codes: Iterable<ErrorCode>): ErrorCode[] {
  const wanted = new Set(codes);
  return (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => wanted.has(code));
}

/** An error response as the OpenAPI document describes it: its status's type, then each of `codes` and what it means. */
export function errorStatusDescription(status: ErrorStatus, codes: readonly ErrorCode[]): string {
  const listed = catalogueOrder(codes).map((code) => `- \`${code}\`: ${ERROR_CODES[code].description}`);
  return [`Type \`${ERROR_TYPES[status]}\`; \`error.code\` is one of:`, ...listed].join('\n');
}

/**
 * An error body of the status as the service sends it, with the first of `codes`. Without it the
 * example comes from ErrorResponseDto's members, the same 422 under every status.
 */
export function errorExample(
  status: ErrorStatus,
  codes: readonly ErrorCode[],
): { error: { type: string; code: string; message: string } } {
  const [code] = catalogueOrder(codes);
  return { error: { type: ERROR_TYPES[status], code, message: ERROR_CODES[code].description } };
}

/**
 * What any route that runs SQL can answer, whatever its statements (toApiError): 503
 * `database_unavailable` when the connection is lost, 409 `conflict` when PostgreSQL aborts a
 * statement for a concurrent one (a deadlock or serialization failure), 409 `duplicate_value` for a
 * unique index a concurrent write took first.
 */
export const DATABASE_ERRORS = namedErrorCodes('Database', ['conflict', 'duplicate_value', 'database_unavailable']);

/**
 * Error codes a handler answers, besides the ones the document derives from the operation itself
 * (documentErrorResponses). Each use adds to the codes of the handler, so that `@Endpoint`, `@Paginated`
 * and the route each say what their part answers; the document lists exactly these on the
 * operation, grouped by status.
 */
export function ApiErrors(codes: readonly ErrorCode[]): MethodDecorator {
  return (_target, _key, descriptor) => {
    Reflect.defineMetadata(
      ERROR_CODES_METADATA,
      catalogueOrder([...errorCodesOf(descriptor.value as Function), ...codes]),
      descriptor.value as object,
    );
    return descriptor;
  };
}

/** The codes `ApiErrors` gave a handler. */
export function errorCodesOf(handler: Function): ErrorCode[] {
  return (Reflect.getMetadata(ERROR_CODES_METADATA, handler) as ErrorCode[] | undefined) ?? [];
}

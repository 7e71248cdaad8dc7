import { applyDecorators } from '@nestjs/common';
import { ApiResponse, getSchemaPath, type ResponseObject } from '@nestjs/swagger';
import { codesOf, ERROR_CODES, ERROR_TYPES, ErrorStatus } from './error-codes';
import { ErrorResponseDto } from './error-response.dto';

/** An error status as the OpenAPI document describes it: its type, then each code it allows and what that code means. */
export function errorStatusDescription(status: ErrorStatus): string {
  const codes = codesOf(status).map((code) => `- \`${code}\`: ${ERROR_CODES[code].description}`);
  return [`Type \`${ERROR_TYPES[status]}\`; \`error.code\` is one of:`, ...codes].join('\n');
}

/**
 * An error body of the status as the service sends it: its type and its first code. Without it the
 * example comes from ErrorResponseDto's members, the same 422 under every status.
 */
export function errorExample(status: ErrorStatus): { error: { type: string; code: string; message: string } } {
  const code = codesOf(status)[0];
  return { error: { type: ERROR_TYPES[status], code, message: ERROR_CODES[code].description } };
}

/** The response object of an error status, for operations documented after Nest built the document. */
export function errorResponseObject(status: ErrorStatus): ResponseObject {
  return {
    description: errorStatusDescription(status),
    content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorResponseDto) } } },
  };
}

/**
 * What any route that runs SQL can answer, whatever its statements (toApiError): 503
 * `database_unavailable` when the connection is lost, 409 `conflict` when PostgreSQL aborts a
 * statement for a concurrent one (a deadlock or serialization failure), 409 `duplicate_value` for a
 * unique index a concurrent write took first.
 */
export const DATABASE_ERRORS = [409, 503] as const satisfies readonly ErrorStatus[];

/** Documents each of `statuses` once, in ascending order, with the catalogue's codes. */
export function ApiErrorResponses(statuses: readonly ErrorStatus[]): MethodDecorator {
  const documented = [...new Set(statuses)].sort((a, b) => a - b);
  return applyDecorators(
    ...documented.map((status) => ApiResponse({ status, description: errorStatusDescription(status), type: ErrorResponseDto })),
  );
}

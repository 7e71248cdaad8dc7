/**
 * The one error type of the service. Every failure, from any layer, ends up as an ApiError and is
 * rendered by the global exception filter as `{ error: { type, code, message, param? } }`
 * (decisions §2). Codes are stable: clients switch on them.
 */
export const ERROR_TYPES = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable_content',
  429: 'too_many_requests',
  500: 'internal_server_error',
  503: 'service_unavailable',
} as const;

export type ErrorStatus = keyof typeof ERROR_TYPES;

export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string };
}

export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
    readonly param?: string,
    /** Extra response headers, e.g. `Retry-After` or `Allow`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { type: ERROR_TYPES[this.status], code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    return { error };
  }

  static notFound(what = 'Resource'): ApiError {
    return new ApiError(404, 'not_found', `${what} not found`);
  }

  static missing(param: string): ApiError {
    return new ApiError(422, 'parameter_missing', `${param} is required`, param);
  }

  static invalidType(param: string, expected: string): ApiError {
    return new ApiError(400, 'invalid_type', `${param} must be ${expected}`, param);
  }

  static invalidValue(param: string, message: string): ApiError {
    return new ApiError(422, 'invalid_value', message, param);
  }

  static unknownField(param: string): ApiError {
    return new ApiError(400, 'unknown_field', `${param} is not a known field`, param);
  }

  static invalidParameter(param: string, message: string): ApiError {
    return new ApiError(400, 'invalid_parameter', message, param);
  }

  static internal(): ApiError {
    return new ApiError(500, 'internal_error', 'An unexpected error occurred');
  }
}

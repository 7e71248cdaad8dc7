import { CodeOf, ERROR_CODES, ErrorCode, ErrorStatus, ErrorType } from './error-codes';

export interface ErrorBody {
  error: { type: ErrorType; code: ErrorCode; message: string; param?: string; resyncCursor?: string };
}

/** Longest run of non-space characters an error repeats from its input; longer ones are cut. */
export const MAX_ECHOED_RUN = 100;
export const MAX_MESSAGE_LENGTH = 1000;
export const MAX_PARAM_LENGTH = 200;

/** `text` cut to at most `max` UTF-16 units plus `…`, never between the halves of a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/**
 * Messages and params name the input they refuse (an id, a key, a value). Whatever a caller puts
 * in them, an error body stays small: each long unbroken run (a 70 KB id) is cut to a prefix,
 * then the whole text to `max`. Linear in the text's length.
 */
export function boundedEcho(text: string, max: number): string {
  if (text.length <= MAX_ECHOED_RUN) return text;
  const runsCut = text
    .split(/(\s+)/)
    .map((piece) => cut(piece, MAX_ECHOED_RUN))
    .join('');
  return cut(runsCut, max);
}

/**
 * The one error type of the service. Every failure, from any layer, ends up as an ApiError and is
 * rendered by the global exception filter as `{ error: { type, code, message, param? } }`
 * (docs/api.md §2). The code must be one the catalogue lists under `status`: a typo, or a code
 * thrown with another status than its own, does not compile.
 */
export class ApiError<S extends ErrorStatus = ErrorStatus> extends Error {
  // Typed by the whole catalogue, not by S: S only ties the constructor's two arguments together,
  // and an ApiError of any status stays an ApiError.
  readonly status: ErrorStatus;
  readonly code: ErrorCode;
  readonly param?: string;
  /** 410 `cursor_expired` only: where the reader of a feed goes on from (docs/api.md §12). */
  resyncCursor?: string;

  constructor(
    status: S,
    code: CodeOf<S>,
    message: string,
    param?: string,
    /** Extra response headers, e.g. `Retry-After` or `Allow`. */
    readonly headers: Record<string, string> = {},
  ) {
    super(boundedEcho(message, MAX_MESSAGE_LENGTH));
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    if (param !== undefined) this.param = boundedEcho(param, MAX_PARAM_LENGTH);
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { type: ERROR_CODES[this.code].type, code: this.code, message: this.message };
    if (this.param !== undefined) error.param = this.param;
    if (this.resyncCursor !== undefined) error.resyncCursor = this.resyncCursor;
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

import type { components } from './schema';

export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorType = components['schemas']['ErrorType'];
type ErrorDetail = components['schemas']['ErrorDetailDto'];

/**
 * A failure the service answered with its error body, `{ "error": { type, code, message, param } }`:
 * branch on `code`, the closed catalogue of docs/api.md §2, never on `message`.
 */
export class RecordsApiError extends Error {
  override readonly name = 'RecordsApiError';
  readonly status: number;
  readonly type: ErrorType;
  readonly code: ErrorCode;
  /** The input at fault, dotted (`fields.$title`), when there is one. */
  readonly param: string | undefined;
  /** Only with `cursor_expired`: the feed's present end, to follow from once the entities are read again. */
  readonly resyncCursor: string | undefined;
  /** Whole seconds the service asked to wait (429, 503), when it said. */
  readonly retryAfterSeconds: number | undefined;
  readonly requestId: string | undefined;

  constructor(response: Response, detail: ErrorDetail) {
    super(detail.message);
    this.status = response.status;
    this.type = detail.type;
    this.code = detail.code;
    this.param = detail.param;
    this.resyncCursor = detail.resyncCursor;
    this.retryAfterSeconds = retryAfterSeconds(response.headers);
    this.requestId = response.headers.get('x-request-id') ?? undefined;
  }
}

/** A failure without the service's error body: a proxy or load balancer in between answered. */
export class UnexpectedResponseError extends Error {
  override readonly name = 'UnexpectedResponseError';
  readonly status: number;

  constructor(
    response: Response,
    readonly body: unknown,
  ) {
    super(`HTTP ${response.status} ${response.statusText} without the service's error body`);
    this.status = response.status;
  }
}

function isErrorDetail(body: unknown): body is { error: ErrorDetail } {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body;
  return typeof error === 'object' && error !== null && 'code' in error && 'type' in error && 'message' in error;
}

/** The error a failed response stands for; `body` is what openapi-fetch read of it. */
export function responseError(response: Response, body: unknown): RecordsApiError | UnexpectedResponseError {
  return isErrorDetail(body) ? new RecordsApiError(response, body.error) : new UnexpectedResponseError(response, body);
}

/**
 * `Retry-After` in seconds: the service sends whole seconds; a proxy may send an HTTP date.
 * Undefined when absent or unreadable.
 */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

import type { HeaderObject, OpenAPIObject, ReferenceObject, ResponseObject } from '@nestjs/swagger';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { IdempotencyInterceptor } from '../idempotency/idempotency.interceptor';
import { BATCH_ITEMS, RATE_CATEGORY } from '../throttling/rate-category';
import { type OperationHandler, operationsOf } from './operation-handlers';

/**
 * The headers the request pipeline writes, whatever the handler: the request id on every answer,
 * the rate-limit headers of WorkspaceRateLimitGuard, the Retry-After of a 429 (rate limit or failed
 * authentications) and of a 503 (`databaseUnavailable`), and the mark of a success the
 * IdempotencyInterceptor replays.
 */
export const PIPELINE_HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': {
    required: true,
    description:
      'The request’s id in the service’s logs: the client’s own X-Request-Id when it is safe to log, else a new UUID.',
    schema: { type: 'string', maxLength: 128 },
  },
  'X-RateLimit-Limit': {
    description:
      'Requests per second the workspace’s bucket of this operation’s rate category allows. Sent once the request is counted: ' +
      'not when it was refused before (authentication, Service-Version, scope, the JSON body parser), nor when the counter store could not count it.',
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the bucket’s current window; sent with X-RateLimit-Limit.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Reset': {
    description:
      'When the bucket’s window ends (or its block, once exhausted), in unix seconds; sent with X-RateLimit-Limit.',
    schema: { type: 'integer' },
  },
  'RateLimit-Policy': {
    description:
      'The bucket’s policy, `"<category>";q=<limit>;w=<window seconds>` (IETF RateLimit headers); sent with X-RateLimit-Limit.',
    schema: { type: 'string', example: '"read";q=25;w=1' },
  },
  RateLimit: {
    description:
      'The bucket’s state, `"<category>";r=<remaining>;t=<seconds to reset>` (IETF RateLimit headers); sent with X-RateLimit-Limit.',
    schema: { type: 'string', example: '"read";r=24;t=1' },
  },
  'X-RateLimit-Batch-Items-Limit': {
    description:
      'Batch inputs per second the workspace’s `batch-items` throttler allows (RATE_LIMIT_BATCH_ITEMS), on batch routes: ' +
      'a call counts once in its rate category and each of its inputs here. Sent once the inputs are counted.',
    schema: { type: 'integer', minimum: 1 },
  },
  'X-RateLimit-Batch-Items-Remaining': {
    description: 'Batch inputs left in the current window; sent with X-RateLimit-Batch-Items-Limit.',
    schema: { type: 'integer', minimum: 0 },
  },
  'X-RateLimit-Batch-Items-Reset': {
    description:
      'When the batch-items window ends (or its block, once exhausted), in unix seconds; sent with X-RateLimit-Batch-Items-Limit.',
    schema: { type: 'integer' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when the answer is the stored one of an earlier request with this Idempotency-Key: the operation did not run again.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': {
    required: true,
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 1 },
  },
};

const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];
const BATCH_ITEMS_HEADERS = [
  'X-RateLimit-Batch-Items-Limit',
  'X-RateLimit-Batch-Items-Remaining',
  'X-RateLimit-Batch-Items-Reset',
];

/** Successes: 200, and a batch's 207 (some inputs failed), which is stored and replayed alike. */
const SUCCESSES = new Set(['200', '207']);

/** Statuses only the steps before the rate-limit guard answer (authentication, the JSON body parser): never counted. */
const ANSWERED_BEFORE_COUNTING = new Set(['401', '413', '415']);

/** Statuses whose every answer carries Retry-After: a 429 of either limiter, a 503 of a lost database. */
const RETRY_LATER = new Set(['429', '503']);

const headerRef = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

/** What of the pipeline runs on an operation's requests, as the guards and Nest read it from its handler. */
export interface OperationPipeline {
  rateLimited: boolean;
  countsBatchItems: boolean;
  idempotent: boolean;
}

export function pipelineOf(handler: Function | undefined): OperationPipeline {
  const interceptors =
    (handler && (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined)) ?? [];
  return {
    rateLimited: handler !== undefined && Reflect.getMetadata(RATE_CATEGORY, handler) !== undefined,
    countsBatchItems: handler !== undefined && Reflect.getMetadata(BATCH_ITEMS, handler) === true,
    idempotent: interceptors.includes(IdempotencyInterceptor),
  };
}

/** The pipeline headers a response of `status` of an operation can carry. */
export function pipelineHeaders(
  status: string,
  { rateLimited, countsBatchItems, idempotent }: OperationPipeline,
): string[] {
  const names = ['X-Request-Id'];
  if (rateLimited && !ANSWERED_BEFORE_COUNTING.has(status)) names.push(...RATE_LIMIT_HEADERS);
  if (countsBatchItems && !ANSWERED_BEFORE_COUNTING.has(status)) names.push(...BATCH_ITEMS_HEADERS);
  if (RETRY_LATER.has(status)) names.push('Retry-After');
  // Only a success is stored, so only a success is replayed.
  if (idempotent && SUCCESSES.has(status)) names.push('Idempotent-Replayed');
  return names;
}

/**
 * Declares on every response the pipeline headers it can carry, as references to
 * `components.headers`. An operation is rate limited when its handler has a rate category, as
 * WorkspaceRateLimitGuard reads it, and idempotent when its handler uses the IdempotencyInterceptor.
 */
export function documentResponseHeaders(document: OpenAPIObject, handlers: Map<string, OperationHandler>): void {
  document.components = { ...document.components, headers: { ...document.components?.headers, ...PIPELINE_HEADERS } };
  for (const operation of operationsOf(document)) {
    const pipeline = pipelineOf(operation.operationId ? handlers.get(operation.operationId)?.handler : undefined);
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!response || '$ref' in response) continue;
      const declared: ResponseObject['headers'] = { ...response.headers };
      for (const name of pipelineHeaders(status, pipeline)) declared[name] = headerRef(name);
      response.headers = declared;
    }
  }
}

import type { components } from './schema';

export {
  type Answer,
  type CallOptions,
  type ClientPaths,
  createRecordsClient,
  type FollowOptions,
  type ItemOf,
  type PagedPath,
  type RawClient,
  type RecordsClient,
  type RecordsClientOptions,
  SERVICE_VERSION,
} from './client';
export { type ErrorCode, type ErrorType, RecordsApiError, UnexpectedResponseError } from './errors';
export { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, type RetryOptions } from './retry';
export type { components, operations, paths } from './schema';

/** The service's schemas by name: `Schemas['EntityEnvelopeDto']`. */
export type Schemas = components['schemas'];

/**
 * The body of a webhook delivery (and an item of `GET /v1/events`): type the request your receiver
 * gets with it, once its signature is checked (Standard Webhooks).
 */
export type WebhookEvent = components['schemas']['EventDto'];

import type { components } from './schema';

export {
  type Answer,
  type CallOptions,
  type ClientPaths,
  createRecordsClient,
  type PagedPath,
  type RawClient,
  type RecordsClient,
  type RecordsClientOptions,
  SERVICE_VERSION,
} from './client';
export { type ErrorCode, type ErrorType, RecordsApiError, UnexpectedResponseError } from './errors';
export type { RetryOptions } from './retry';
export type { components, operations, paths } from './schema';

/** The service's schemas by name: `Schemas['EntityEnvelopeDto']`. */
export type Schemas = components['schemas'];

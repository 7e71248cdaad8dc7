import createClient, { type Client, type ClientPathsWithMethod, type FetchOptions, type MethodResponse } from 'openapi-fetch';
import { responseError } from './errors';
import { DEFAULT_RETRY, type Fetch, retryingFetch, type RetryOptions } from './retry';
import type { operations, paths } from './schema';

/** The interface version this client was generated for; a document of another version does not compile here. */
export const SERVICE_VERSION: operations['Auth_validate']['parameters']['header']['Service-Version'] = '2026-03-01';

/**
 * An operation as a caller writes it: the document requires `Service-Version` on each, and the
 * client sends it on every request, so a call need not (and cannot) repeat it.
 */
type WithoutVersionHeader<Operation> = Operation extends { parameters: { header: infer Header } }
  ? Omit<Operation, 'parameters'> & {
      parameters: Omit<Operation['parameters'], 'header'> & { header?: HeaderWithoutVersion<Header> };
    }
  : Operation;
/** `never` when nothing is left, so that a `Service-Version` given anyway does not compile either. */
type HeaderWithoutVersion<Header> =
  Omit<Header, 'Service-Version'> extends infer Rest ? ([keyof Rest] extends [never] ? never : Rest) : never;

/** The service's paths as the client takes them (see WithoutVersionHeader). */
export type ClientPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: WithoutVersionHeader<paths[Path][Method]> };
};

/** openapi-fetch's client for these paths: `{ data, error, response }`, for callers who want the response. */
export type RawClient = Client<ClientPaths>;

type Method = 'get' | 'post' | 'delete';
type PathOf<M extends Method> = ClientPathsWithMethod<RawClient, M>;

/** What a call takes: path, query and header parameters, and the body. The answer is always read as JSON. */
export type CallOptions<M extends Method, P extends PathOf<M>> = Omit<FetchOptions<ClientPaths[P][M]>, 'parseAs'>;
type CallArguments<M extends Method, P extends PathOf<M>> = {} extends CallOptions<M, P>
  ? [options?: CallOptions<M, P>]
  : [options: CallOptions<M, P>];

/** The body of a call's success. */
export type Answer<M extends Method, P extends PathOf<M>> = MethodResponse<RawClient, M, P>;

/** Answers the success body; throws RecordsApiError (or UnexpectedResponseError) otherwise. */
export type Call<M extends Method> = <P extends PathOf<M>>(path: P, ...options: CallArguments<M, P>) => Promise<Answer<M, P>>;

/** The paths that answer a page: `{ data, nextCursor }`, and take the `cursor` it gives. */
export type PagedPath = {
  [P in PathOf<'get'>]: Answer<'get', P> extends { data: unknown[]; nextCursor: string | null } ? P : never;
}[PathOf<'get'>];

export interface RecordsClient {
  get: Call<'get'>;
  post: Call<'post'>;
  delete: Call<'delete'>;
  /**
   * Every page of a list, the first read with `options`, each next one by its cursor alone (it
   * carries the filters and the limit). Ends after the last page: `nextCursor` null, or an empty
   * page (the event feed always gives a cursor; keep the last page's to poll with later).
   */
  pages<P extends PagedPath>(path: P, ...options: CallArguments<'get', P>): AsyncGenerator<Answer<'get', P>, void, undefined>;
  /** The same requests (key, version, Idempotency-Key, retries), answered the openapi-fetch way. */
  raw: RawClient;
}

export interface RecordsClientOptions {
  /** Where the service is, e.g. `http://localhost:3000` (paths start with `/v1`). */
  baseUrl: string;
  /** An API key (`sk_…`); the operator API takes the ADMIN_TOKEN here. */
  apiKey: string;
  retry?: Partial<RetryOptions>;
  fetch?: Fetch;
}

/**
 * Filters travel as one query parameter per member, `$title[startsWith]=Q3` (docs/api.md §8):
 * openapi-fetch's default for an object, `filters[$title[startsWith]]=Q3`, is refused.
 */
const QUERY_STYLE = { object: { style: 'form', explode: true } } as const;

interface Page {
  data: unknown[];
  nextCursor: string | null;
}
interface PageOptions {
  params?: { path?: Record<string, string>; query?: Record<string, unknown> };
}

export function createRecordsClient(options: RecordsClientOptions): RecordsClient {
  const raw = createClient<ClientPaths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}`, 'Service-Version': SERVICE_VERSION },
    querySerializer: QUERY_STYLE,
    fetch: retryingFetch(options.fetch ?? ((request) => globalThis.fetch(request)), { ...DEFAULT_RETRY, ...options.retry }),
  });
  // One implementation for the three methods; `request`'s per-path typing cannot follow a method chosen at run time.
  const call =
    <M extends Method>(method: M): Call<M> =>
    async (path, ...[init]) => {
      const { data, error, response } = await raw.request(method as 'get', path as PathOf<'get'>, init as never);
      if (!response.ok) throw responseError(response, error);
      return data as never;
    };
  const get = call('get');
  // Written once for any page: `get` typed for no path in particular, its answer only as a page.
  const getPage = get as unknown as (path: string, init?: PageOptions) => Promise<Page>;
  async function* pages(path: string, init?: PageOptions): AsyncGenerator<Page, void, undefined> {
    let page = await getPage(path, init);
    yield page;
    while (page.nextCursor !== null && page.data.length > 0) {
      page = await getPage(path, { ...init, params: { ...init?.params, query: { cursor: page.nextCursor } } });
      yield page;
    }
  }
  return { get, post: call('post'), delete: call('delete'), pages: pages as RecordsClient['pages'], raw };
}

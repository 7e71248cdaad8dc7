import createClient, { type Client, type ClientPathsWithMethod, type FetchOptions, type MethodResponse } from 'openapi-fetch';
import { responseError } from './errors';
import { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, type Fetch, retryingFetch, type RetryOptions } from './retry';
import type { operations, paths } from './schema';

/** The interface version this client was generated for; a document of another version does not compile here. */
export const SERVICE_VERSION: operations['Auth_validate']['parameters']['header']['Service-Version'] = '2026-03-01';

/**
 * An operation as a caller writes it: the document requires `Service-Version` on each, and the
 * client sends it on every request, so a call need not (and cannot) repeat it; and a page's
 * `nextCursor`, null on the last page, is taken as the `cursor` as it is (null sends none).
 */
type AsCalled<Operation> = Operation extends { parameters: { header: infer Header; query?: infer Query } }
  ? Omit<Operation, 'parameters'> & {
      parameters: Omit<Operation['parameters'], 'header' | 'query'> & {
        header?: HeaderWithoutVersion<Header>;
      } & QueryPart<Operation['parameters'], Query>;
    }
  : Operation;
/** The query as the document has it (required or not), its `cursor` also null. */
type QueryPart<Parameters, Query> = [Query] extends [undefined]
  ? {}
  : {} extends Pick<Parameters, 'query' & keyof Parameters>
    ? { query?: CursorOrNull<NonNullable<Query>> }
    : { query: CursorOrNull<NonNullable<Query>> };
type CursorOrNull<Query> = Query extends { cursor?: string } ? Omit<Query, 'cursor'> & { cursor?: string | null } : Query;
/** `never` when nothing is left, so that a `Service-Version` given anyway does not compile either. */
type HeaderWithoutVersion<Header> =
  Omit<Header, 'Service-Version'> extends infer Rest ? ([keyof Rest] extends [never] ? never : Rest) : never;

/** The service's paths as the client takes them (see AsCalled). */
export type ClientPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: AsCalled<paths[Path][Method]> };
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
  /** Every item of a list, page after page as `pages` reads them: `for await (const note of client.items('/v1/notes'))`. */
  items<P extends PagedPath>(path: P, ...options: CallArguments<'get', P>): AsyncGenerator<ItemOf<P>, void, undefined>;
  /** The same requests (key, version, Idempotency-Key, timeout, retries), answered the openapi-fetch way. */
  raw: RawClient;
}

/** An item of a paged path's pages. */
export type ItemOf<P extends PagedPath> = Answer<'get', P> extends { data: (infer Item)[] } ? Item : never;

export interface RecordsClientOptions {
  /** Where the service is, e.g. `http://localhost:3000` (paths start with `/v1`). */
  baseUrl: string;
  /** An API key (`sk_…`); the operator API takes the ADMIN_TOKEN here. */
  apiKey: string;
  retry?: Partial<RetryOptions>;
  /** How long one attempt may take before it is abandoned (and retried, when that is safe); 30 s unless given. */
  timeoutMs?: number;
  fetch?: Fetch;
}

/**
 * Filters travel as one query parameter per member, `$title[startsWith]=Q3` (docs/api.md §8):
 * openapi-fetch's default for an object, `filters[$title[startsWith]]=Q3`, is refused.
 */
const QUERY_STYLE = { object: { style: 'form', explode: true } } as const;

/** What openapi-fetch answers, whatever the path: the success body, or the error body and the response. */
interface Fetched {
  data?: unknown;
  error?: unknown;
  response: Response;
}

export function createRecordsClient(options: RecordsClientOptions): RecordsClient {
  const raw = createClient<ClientPaths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}`, 'Service-Version': SERVICE_VERSION },
    querySerializer: QUERY_STYLE,
    fetch: retryingFetch(
      options.fetch ?? ((request) => globalThis.fetch(request)),
      { ...DEFAULT_RETRY, ...options.retry },
      options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ),
  });
  // openapi-fetch's `request`, typed for no path in particular: one implementation for the three
  // methods and for pages, whose per-path types the signatures of RecordsClient give.
  const request = raw.request as unknown as (method: Method, path: string, init?: object) => Promise<Fetched>;
  const send = async (method: Method, path: string, init?: object): Promise<unknown> => {
    const { data, error, response } = await request(method, path, init);
    if (!response.ok) throw responseError(response, error);
    return data;
  };
  const call = <M extends Method>(method: M): Call<M> =>
    ((path: string, init?: object) => send(method, path, init)) as Call<M>;

  interface Page {
    data: unknown[];
    nextCursor: string | null;
  }
  interface PageInit {
    params?: { query?: object };
  }
  async function* pages(path: string, init?: PageInit): AsyncGenerator<Page, void, undefined> {
    let page = (await send('get', path, init)) as Page;
    yield page;
    while (page.nextCursor !== null && page.data.length > 0) {
      page = (await send('get', path, { ...init, params: { ...init?.params, query: { cursor: page.nextCursor } } })) as Page;
      yield page;
    }
  }
  async function* items(path: string, init?: PageInit): AsyncGenerator<unknown, void, undefined> {
    for await (const page of pages(path, init)) yield* page.data;
  }
  return {
    get: call('get'),
    post: call('post'),
    delete: call('delete'),
    pages: pages as RecordsClient['pages'],
    items: items as RecordsClient['items'],
    raw,
  };
}

import createClient, {
  type Client,
  type ClientOptions,
  type ClientPathsWithMethod,
  type FetchOptions,
  type MethodResponse,
} from 'openapi-fetch';
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
/** The type with no members: what `{}` means in a type position, said so (`{}` alone reads as "any non-nullish value"). */
type NoMembers = Record<never, never>;
/** The query as the document has it (required or not), its `cursor` also null. */
type QueryPart<Parameters, Query> = [Query] extends [undefined]
  ? NoMembers
  : NoMembers extends Pick<Parameters, 'query' & keyof Parameters>
    ? { query?: CursorOrNull<NonNullable<Query>> }
    : { query: CursorOrNull<NonNullable<Query>> };
type CursorOrNull<Query> = Query extends { cursor?: string }
  ? Omit<Query, 'cursor'> & { cursor?: string | null }
  : Query;
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

/**
 * What a call takes: path, query and header parameters, and the body. The answer is always read as
 * JSON. A route of one entity also takes its preconditions (see Preconditions).
 */
export type CallOptions<M extends Method, P extends PathOf<M>> = Omit<FetchOptions<ClientPaths[P][M]>, 'parseAs'> &
  (M extends 'get' ? NoMembers : PreconditionsOf<HeadersOf<paths[P][M]>>);
type CallArguments<M extends Method, P extends PathOf<M>> =
  NoMembers extends CallOptions<M, P> ? [options?: CallOptions<M, P>] : [options: CallOptions<M, P>];
type HeadersOf<Operation> = Operation extends { parameters: { header?: infer Header } } ? NonNullable<Header> : never;

/**
 * A write's preconditions (docs/api.md §7, "Conditional requests"): the ETag an answer came with
 * (`etagOf`) sent back as `ifMatch` makes the write only if nobody changed the entity since (else
 * RecordsApiError 412 `precondition_failed`); `ifNoneMatch: '*'` on an upsert creates only.
 */
export interface Preconditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}
/** The preconditions a write takes: the headers its operation documents. */
type PreconditionsOf<Header> = ('If-Match' extends keyof Header ? Pick<Preconditions, 'ifMatch'> : NoMembers) &
  ('If-None-Match' extends keyof Header ? Pick<Preconditions, 'ifNoneMatch'> : NoMembers);

/** The body of a call's success. */
export type Answer<M extends Method, P extends PathOf<M>> = MethodResponse<RawClient, M, P>;

/** Answers the success body; throws RecordsApiError (or UnexpectedResponseError) otherwise. */
export type Call<M extends Method> = <P extends PathOf<M>>(
  path: P,
  ...options: CallArguments<M, P>
) => Promise<Answer<M, P>>;

/** The paths whose GET takes If-None-Match: one entity's. */
export type ConditionalReadPath = {
  [P in PathOf<'get'>]: 'If-None-Match' extends keyof HeadersOf<paths[P]['get']> ? P : never;
}[PathOf<'get'>];

/** The paths that answer a page: `{ data, nextCursor }`, and take the `cursor` it gives. */
export type PagedPath = {
  [P in PathOf<'get'>]: Answer<'get', P> extends { data: unknown[]; nextCursor: string | null } ? P : never;
}[PathOf<'get'>];

export interface RecordsClient {
  get: Call<'get'>;
  post: Call<'post'>;
  delete: Call<'delete'>;
  /**
   * Every page of a list, the first read with `options`, each next one by its cursor beside the
   * first page's query (the cursor's own, as the service requires; `offset` left out, the cursor
   * being the position). Ends after the last page: `nextCursor` null, or an empty
   * page (the event feed always gives a cursor; keep the last page's to poll with later).
   */
  pages<P extends PagedPath>(
    path: P,
    ...options: CallArguments<'get', P>
  ): AsyncGenerator<Answer<'get', P>, void, undefined>;
  /** Every item of a list, page after page as `pages` reads them: `for await (const note of client.items('/v1/notes'))`. */
  items<P extends PagedPath>(path: P, ...options: CallArguments<'get', P>): AsyncGenerator<ItemOf<P>, void, undefined>;
  /**
   * The change feed as it grows, by long polls (`GET /v1/events?wait=`): each page that holds
   * events, as soon as they are committed, for as long as the caller reads on, until `signal`
   * aborts. Keep each page's `nextCursor` once its events are handled, to go on from there later:
   * `for await (const page of client.follow({ cursor })) { handle(page.data); save(page.nextCursor); }`.
   * A cursor older than the retention throws RecordsApiError `cursor_expired`, whose
   * `resyncCursor` (docs/api.md §12) is where to follow from once the entities are read again.
   */
  follow(options?: FollowOptions): AsyncGenerator<Answer<'get', '/v1/events'>, void, undefined>;
  /** The ETag an answer of one entity came with (`"v3"`): to send back as `ifMatch`, or to `getIfChanged`. */
  etagOf(answer: object): string | undefined;
  /**
   * A GET of one entity unless it is still as `etag` (an `etagOf` of an earlier answer) says:
   * `undefined` then, the service having answered 304 without a body.
   */
  getIfChanged<P extends ConditionalReadPath>(
    path: P,
    etag: string,
    ...options: CallArguments<'get', P>
  ): Promise<Answer<'get', P> | undefined>;
  /** The same requests (key, version, Idempotency-Key, timeout, retries), answered the openapi-fetch way. */
  raw: RawClient;
}

export interface FollowOptions {
  /** Where to go on from: a `nextCursor` kept from before; else the start of the feed. */
  cursor?: string;
  /** Without a cursor: the event types to follow, and the page size (a cursor carries its own). */
  types?: string;
  limit?: number;
  /** Seconds a read waits for an event, 0..30; by default as long as the timeout leaves 5 s for the answer. */
  wait?: number;
  /** Ends the feed's reading, a read under way included. */
  signal?: AbortSignal;
}

/** The longest a feed read may wait, in seconds (docs/api.md §12). */
const MAX_FEED_WAIT_SECONDS = 30;
/** What a long poll leaves of the timeout for its answer to arrive. */
const ANSWER_MARGIN_MS = 5000;

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

/**
 * A path as the implementation sends it: any query, header, path parameters and JSON body, any JSON
 * answer. RecordsClient's signatures check each call against the document's types; what they
 * accept is then sent by one implementation for every path, which no generic body could be
 * checked against openapi-fetch's conditional types for.
 */
interface SentOperation {
  parameters: { query?: Record<string, unknown>; header?: Record<string, unknown>; path?: Record<string, unknown> };
  requestBody?: { content: { 'application/json': unknown } };
  responses: { 200: { content: { 'application/json': unknown } } };
}
type SentPaths = Record<string, Record<Method, SentOperation>>;
type SentInit = FetchOptions<SentOperation> & Preconditions;

/** The members of a page that `pages` reads, whatever its items. */
interface Page {
  data: unknown[];
  nextCursor: string | null;
}
const isPage = (answer: unknown): answer is Page =>
  typeof answer === 'object' &&
  answer !== null &&
  'data' in answer &&
  Array.isArray(answer.data) &&
  'nextCursor' in answer;

export function createRecordsClient(options: RecordsClientOptions): RecordsClient {
  const clientOptions: ClientOptions = {
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}`, 'Service-Version': SERVICE_VERSION },
    querySerializer: QUERY_STYLE,
    fetch: retryingFetch(
      options.fetch ?? ((request) => globalThis.fetch(request)),
      { ...DEFAULT_RETRY, ...options.retry },
      options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ),
  };
  const raw = createClient<ClientPaths>(clientOptions);
  const sender = createClient<SentPaths>(clientOptions);
  // Keyed by the answer, so that an answer the caller lets go takes its tag along.
  const etags = new WeakMap<object, string>();
  const send = async (method: Method, path: string, init: SentInit = {}): Promise<unknown> => {
    const { ifMatch, ifNoneMatch, ...request } = init;
    const preconditions = {
      ...(ifMatch !== undefined && { 'If-Match': ifMatch }),
      ...(ifNoneMatch !== undefined && { 'If-None-Match': ifNoneMatch }),
    };
    const { data, error, response } = await sender.request(method, path, {
      ...request,
      params: { ...request.params, header: { ...request.params?.header, ...preconditions } },
    });
    if (response.status === 304 && ifNoneMatch !== undefined) return undefined;
    if (!response.ok) throw responseError(response, error);
    const etag = response.headers.get('etag');
    if (etag !== null && typeof data === 'object' && data !== null) etags.set(data, etag);
    return data;
  };
  function call<M extends Method>(method: M): Call<M> {
    function typed<P extends PathOf<M>>(path: P, ...options: CallArguments<M, P>): Promise<Answer<M, P>>;
    function typed(path: string, init?: SentInit): Promise<unknown> {
      return send(method, path, init);
    }
    return typed;
  }
  function getIfChanged<P extends ConditionalReadPath>(
    path: P,
    etag: string,
    ...options: CallArguments<'get', P>
  ): Promise<Answer<'get', P> | undefined>;
  function getIfChanged(path: string, etag: string, init?: SentInit): Promise<unknown> {
    return send('get', path, { ...init, ifNoneMatch: etag });
  }

  async function* pagesOf(path: string, init: SentInit = {}): AsyncGenerator<Page, void, undefined> {
    let page = await send('get', path, init);
    while (isPage(page)) {
      yield page;
      if (page.nextCursor === null || page.data.length === 0) return;
      // The first page's query goes along (it must be the cursor's own, and search requires its q), but
      // its offset: the cursor is the position.
      const { offset: _position, ...query } = init.params?.query ?? {};
      page = await send('get', path, {
        ...init,
        params: { ...init.params, query: { ...query, cursor: page.nextCursor } },
      });
    }
    throw new TypeError(`GET ${path} did not answer a page`);
  }
  function pages<P extends PagedPath>(
    path: P,
    ...options: CallArguments<'get', P>
  ): AsyncGenerator<Answer<'get', P>, void, undefined>;
  function pages(path: string, init?: SentInit): AsyncGenerator<Page, void, undefined> {
    return pagesOf(path, init);
  }
  function items<P extends PagedPath>(
    path: P,
    ...options: CallArguments<'get', P>
  ): AsyncGenerator<ItemOf<P>, void, undefined>;
  async function* items(path: string, init?: SentInit): AsyncGenerator<unknown, void, undefined> {
    for await (const page of pagesOf(path, init)) yield* page.data;
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  function follow(options?: FollowOptions): AsyncGenerator<Answer<'get', '/v1/events'>, void, undefined>;
  async function* follow({ cursor, types, limit, wait, signal }: FollowOptions = {}): AsyncGenerator<
    Page,
    void,
    undefined
  > {
    const waitSeconds =
      wait ?? Math.max(0, Math.min(MAX_FEED_WAIT_SECONDS, Math.floor((timeoutMs - ANSWER_MARGIN_MS) / 1000)));
    let query: Record<string, unknown> = cursor ? { cursor } : { types, limit };
    while (!signal?.aborted) {
      let page: unknown;
      try {
        page = await send('get', '/v1/events', { params: { query: { ...query, wait: waitSeconds } }, signal });
      } catch (error) {
        if (signal?.aborted) return;
        throw error;
      }
      if (!isPage(page) || page.nextCursor === null) throw new TypeError('GET /v1/events did not answer a page');
      if (page.data.length > 0) yield page;
      query = { cursor: page.nextCursor };
    }
  }
  return {
    get: call('get'),
    post: call('post'),
    delete: call('delete'),
    pages,
    items,
    follow,
    etagOf: (answer) => etags.get(answer),
    getIfChanged,
    raw,
  };
}

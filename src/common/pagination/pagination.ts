import {
  applyDecorators,
  CallHandler,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
  Type,
  UseInterceptors,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiExtraModels, ApiOkResponse, ApiQuery, type ApiQueryOptions, getSchemaPath } from '@nestjs/swagger';
import type { ParsedUrlQuery } from 'node:querystring';
import type { Request } from 'express';
import { map, Observable } from 'rxjs';
import { ApiError } from '../errors/api-error';
import { ApiErrors } from '../errors/error-responses';
import { queryOf } from '../http/http-server';
import { TakesQuery, validateQuery } from '../http/query-parameters';
import { MAX_PAGE_SIZE, PageQueryDto } from './page-query.dto';
import { encodeListCursor, PageFilters, PageKey, resumeListCursor } from './page-cursor';

export { MAX_PAGE_SIZE };
/**
 * Filters one list may combine. Each value filter is a subquery that PostgreSQL plans with the
 * others, and planning grows faster than their number (25 took 0.5 s, 100 took 7 s); ten cover any
 * list a person or an integration asks for.
 */
export const MAX_FILTERS = 10;
const PAGINATED = 'pagination:options';

export interface PageRequest {
  limit: number;
  /** 0 on a cursor's page. */
  offset: number;
  /**
   * Query parameters other than `limit`, `offset` and `cursor` (the filters, on routes that take
   * them), in a null-prototype object; a cursor's own when it was sent alone.
   */
  filters: PageFilters;
  /** A cursor's position: the key of the last row of the page before; this page holds the rows after it. */
  after?: PageKey;
}

/**
 * A page as its repository read it (endPage): its rows, the count of every match, and the key of
 * its last row when more rows follow (null on the last page), of which the next cursor is made.
 */
export interface PageRead<Row> {
  rows: Row[];
  total: number;
  next: PageKey | null;
}

/**
 * What a paginated handler returns; the interceptor wraps it in the paged list envelope, `next`
 * (the PageRead's) becoming `nextCursor`.
 */
export interface PageResult<T> {
  data: T[];
  totalCount: number;
  next: PageKey | null;
}

interface PaginatedOptions {
  /**
   * Present on routes that take `?key[operator]=value` filters: an example set of them, which the
   * OpenAPI document offers as one exploded object parameter (Swagger UI edits it as JSON).
   */
  filters?: Record<string, string>;
  /**
   * The list's rows are keyed by a bigint serial, not an id (a webhook's delivery attempts): a
   * cursor's key is then such a number, and a crafted one holding anything else is refused.
   */
  serialKeys?: boolean;
}

/** The filters as the document offers them (see PaginatedOptions.filters). */
function filtersParameter(example: Record<string, string>): ApiQueryOptions {
  return {
    name: 'filters',
    required: false,
    style: 'form',
    explode: true,
    // In the schema: @nestjs/swagger drops a query parameter's own example beside a schema.
    schema: {
      type: 'object',
      additionalProperties: { type: 'string' },
      maxProperties: MAX_FILTERS,
      example,
    },
    description:
      'Filters, ANDed, each a query parameter `key[operator]=value` (`key=value` uses the field type’s ' +
      'default operator; `key[-operator]=value` negates it and also matches records where the value is ' +
      `unset; each parameter at most once; at most ${MAX_FILTERS}). The parameter itself has no name in ` +
      'the URL: each member of this object is one query parameter.',
  };
}

/**
 * Marks a paged list handler (docs/api.md §3): `limit` 1..25 (default 25), `offset` ≥ 0 (default 0)
 * and `cursor` are checked before the handler runs, other query parameters are refused unless the
 * route takes filters, and the result becomes `{ object: 'list', data, totalCount, nextCursor }`.
 */
export function Paginated(item: Type<unknown>, options: PaginatedOptions = {}): MethodDecorator {
  return applyDecorators(
    SetMetadata(PAGINATED, options),
    UseInterceptors(PaginationInterceptor),
    ApiExtraModels(item),
    // A bad limit, offset or cursor; a filter on a field the type lacks, or one it cannot apply.
    ApiErrors(['invalid_parameter', ...(options.filters ? (['unknown_field', 'invalid_filter'] as const) : [])]),
    TakesQuery(),
    ApiQuery({ type: PageQueryDto }),
    ...(options.filters ? [ApiQuery(filtersParameter(options.filters))] : []),
    ApiOkResponse({
      description: 'A page of results, newest first',
      schema: {
        type: 'object',
        required: ['object', 'data', 'totalCount', 'nextCursor'],
        properties: {
          object: { type: 'string', enum: ['list'] },
          data: { type: 'array', items: { $ref: getSchemaPath(item) } },
          totalCount: { type: 'integer', minimum: 0 },
          nextCursor: {
            type: 'string',
            nullable: true,
            description: 'The `cursor` of the next page; null on the last page.',
          },
        },
      },
    }),
  );
}

/**
 * The page a request asks for. `route` is the list's concrete path (see routeOf), which a cursor
 * must have been read from. With `cursor`, `offset` is refused, even 0: the cursor is the position.
 */
export function parsePageRequest(query: ParsedUrlQuery, options: PaginatedOptions, route: string): PageRequest {
  // Keyed by what the client sent: `__proto__` or `constructor` must arrive as filter keys (and be refused there).
  const filters = Object.create(null) as PageRequest['filters'];
  const paging = validateQuery(PageQueryDto, query, (key, value) => {
    // `limit[]=1`, `offset[gt]=2` or `cursor[]=…` are malformed paging parameters, not filters.
    const base = key.replace(/\[.*$/, '');
    if (base === 'limit' || base === 'offset') throw ApiError.invalidParameter(key, `${base} must be a single integer`);
    if (base === 'cursor') throw ApiError.invalidParameter(key, 'cursor must be a single string');
    if (!options.filters) throw ApiError.invalidParameter(key, `Unknown query parameter ${key}`);
    if (Object.keys(filters).length === MAX_FILTERS) {
      throw new ApiError(400, 'invalid_filter', `At most ${MAX_FILTERS} filters may be combined`, key);
    }
    filters[key] = value;
  });
  const limit = paging.limit ?? MAX_PAGE_SIZE;
  const offset = paging.offset ?? 0;
  const cursor = paging.cursor;
  if (cursor === undefined) return { limit, offset, filters };
  if (paging.offset !== undefined) {
    throw ApiError.invalidParameter('offset', 'offset cannot be given with cursor: the cursor is the position');
  }
  const resumed = resumeListCursor(cursor, {
    route,
    limit: paging.limit,
    filters,
    maxFilters: options.filters ? MAX_FILTERS : 0,
    maxLimit: MAX_PAGE_SIZE,
    serialKeys: options.serialKeys,
  });
  return { ...resumed, offset: 0 };
}

/**
 * The page of `read`, whose rows were read with rowsRead(page) (paging-sql.ts): the first `limit`
 * of them, and as `next` the key (`keyOf`) of the last of those when a row follows it, else null.
 */
export function endPage<Row>(
  page: Pick<PageRequest, 'limit'>,
  read: { rows: Row[]; total: number },
  keyOf: (row: Row) => PageKey,
): PageRead<Row> {
  const more = read.rows.length > page.limit;
  const rows = more ? read.rows.slice(0, page.limit) : read.rows;
  return { rows, total: read.total, next: more ? keyOf(rows[rows.length - 1]) : null };
}

/**
 * The list a request reads, as a cursor names it: its route's path with the route's parameters
 * put in (`/v1/lists/lst_…/accounts`), whatever letter case or trailing slash the request used.
 */
function routeOf(request: Request): string {
  const path = (request.route as { path?: string } | undefined)?.path ?? request.path;
  return path.replace(/:(\w+)/g, (parameter, name: string) => {
    const value: unknown = request.params[name];
    return typeof value === 'string' ? value : parameter;
  });
}

type PagedRequest = Request & { page?: PageRequest };

/**
 * The interceptor `@Paginated` puts on its handler: it parses the page request (the handler's
 * `@Page()`), and wraps the result, with the cursor of the page after it.
 */
@Injectable()
export class PaginationInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const options = this.reflector.get<PaginatedOptions>(PAGINATED, context.getHandler());
    const request = context.switchToHttp().getRequest<PagedRequest>();
    const route = routeOf(request);
    const page = parsePageRequest(queryOf(request), options, route);
    request.page = page;
    return next.handle().pipe(
      map((result: PageResult<unknown>) => {
        const nextCursor = result.next && encodeListCursor(route, page, result.next);
        return { object: 'list', data: result.data, totalCount: result.totalCount, nextCursor };
      }),
    );
  }
}

/** Handler parameter: the validated page request of a `@Paginated` route. */
export const Page = createParamDecorator(
  (_data: unknown, context: ExecutionContext): PageRequest => context.switchToHttp().getRequest<PagedRequest>().page!,
);

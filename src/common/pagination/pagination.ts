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
import { ApiExtraModels, ApiOkResponse, type ApiQueryOptions, getSchemaPath } from '@nestjs/swagger';
import type { ParsedUrlQuery } from 'node:querystring';
import type { Request } from 'express';
import { map, Observable } from 'rxjs';
import { ApiError } from '../errors/api-error';
import { queryOf } from '../http/http-server';
import { QueryParameters } from '../http/query-parameters';

export const MAX_PAGE_SIZE = 25;
/**
 * Filters one list may combine. Each value filter is a subquery that PostgreSQL plans with the
 * others, and planning grows faster than their number (25 took 0.5 s, 100 took 7 s); ten cover any
 * list a person or an integration asks for.
 */
export const MAX_FILTERS = 10;
const PAGINATED = 'pagination:options';

export interface PageRequest {
  limit: number;
  offset: number;
  /** Query parameters other than `limit` and `offset` (the filters, on routes that take them), in a null-prototype object. */
  filters: Record<string, string | string[]>;
}

/** What a paginated handler returns; the interceptor wraps it in the paged list envelope. */
export interface PageResult<T> {
  data: T[];
  totalCount: number;
}

interface PaginatedOptions {
  /**
   * Present on routes that take `?key[operator]=value` filters: an example set of them, which the
   * OpenAPI document offers as one exploded object parameter (Swagger UI edits it as JSON).
   */
  filters?: Record<string, string>;
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
 * Marks a paged list handler (docs/api.md §3): `limit` 1..25 (default 25) and `offset` ≥ 0 (default 0)
 * are checked before the handler runs, other query parameters are refused unless the route takes
 * filters, and the result becomes `{ object: 'list', data, totalCount }`.
 */
export function Paginated(item: Type<unknown>, options: PaginatedOptions = {}): MethodDecorator {
  return applyDecorators(
    SetMetadata(PAGINATED, options),
    UseInterceptors(PaginationInterceptor),
    ApiExtraModels(item),
    QueryParameters(
      { name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 25 } },
      { name: 'offset', required: false, schema: { type: 'integer', minimum: 0, default: 0 } },
      ...(options.filters ? [filtersParameter(options.filters)] : []),
    ),
    ApiOkResponse({
      description: 'A page of results, newest first',
      schema: {
        type: 'object',
        required: ['object', 'data', 'totalCount'],
        properties: {
          object: { type: 'string', enum: ['list'] },
          data: { type: 'array', items: { $ref: getSchemaPath(item) } },
          totalCount: { type: 'integer', minimum: 0 },
        },
      },
    }),
  );
}

function integerParameter(query: ParsedUrlQuery, name: string, fallback: number, min: number, max: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const text = typeof raw === 'string' ? raw : undefined;
  // Up to 16 digits: enough for Number.MAX_SAFE_INTEGER, beyond which the range check refuses.
  const value = text !== undefined && /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
    throw ApiError.invalidParameter(name, `${name} must be ${range}`);
  }
  return value;
}

export function parsePageRequest(query: ParsedUrlQuery, options: PaginatedOptions): PageRequest {
  const limit = integerParameter(query, 'limit', MAX_PAGE_SIZE, 1, MAX_PAGE_SIZE);
  const offset = integerParameter(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  // Keyed by what the client sent: `__proto__` or `constructor` must arrive as filter keys (and be refused there).
  const filters: PageRequest['filters'] = Object.create(null);
  for (const [key, value] of Object.entries(query)) {
    if (key === 'limit' || key === 'offset') continue;
    // `limit[]=1` or `offset[gt]=2` are malformed paging parameters, not filters.
    const base = key.replace(/\[.*$/, '');
    if (base === 'limit' || base === 'offset') throw ApiError.invalidParameter(key, `${base} must be a single integer`);
    if (!options.filters) throw ApiError.invalidParameter(key, `Unknown query parameter ${key}`);
    if (Object.keys(filters).length === MAX_FILTERS) {
      throw new ApiError(400, 'invalid_filter', `At most ${MAX_FILTERS} filters may be combined`, key);
    }
    filters[key] = value as string | string[];
  }
  return { limit, offset, filters };
}

type PagedRequest = Request & { page?: PageRequest };

/** The interceptor `@Paginated` puts on its handler: it parses the page request and wraps the result. */
@Injectable()
export class PaginationInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const options = this.reflector.get<PaginatedOptions>(PAGINATED, context.getHandler());
    const request = context.switchToHttp().getRequest<PagedRequest>();
    request.page = parsePageRequest(queryOf(request), options);
    return next
      .handle()
      .pipe(map((result: PageResult<unknown>) => ({ object: 'list', data: result.data, totalCount: result.totalCount })));
  }
}

/** Handler parameter: the validated page request of a `@Paginated` route. */
export const Page = createParamDecorator(
  (_data: unknown, context: ExecutionContext): PageRequest => context.switchToHttp().getRequest<PagedRequest>().page!,
);

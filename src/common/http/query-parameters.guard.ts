import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '../errors/api-error';
import { queryOf } from './http-server';
import { takesQueryParameters } from './query-parameters';

/**
 * After authentication, version, scope and rate limit, as validation comes after them (and before
 * PreconditionsGuard, the last): a route that declares no query parameters (a `@Query()` DTO, or `@Paginated`) refuses
 * any, `400 invalid_parameter` (docs/api.md §2), rather than ignoring what the client meant to ask.
 * A route that declares some has them validated (DtoValidationPipe, PaginationInterceptor).
 */
@Injectable()
export class QueryParametersGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (takesQueryParameters(context.getClass(), context.getHandler())) return true;
    const [name] = Object.keys(queryOf(context.switchToHttp().getRequest<Request>()));
    if (name !== undefined) throw ApiError.invalidParameter(name, `${name} is not a query parameter of this route`);
    return true;
  }
}

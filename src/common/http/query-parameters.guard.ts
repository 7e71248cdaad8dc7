import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DECORATORS } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiError } from '../errors/api-error';
import { queryOf } from './http-server';

/**
 * Whether a handler takes query parameters: it documents some (`@ApiQuery`, which `@Paginated`
 * adds) or binds them (`@Query`). Such a handler checks its own parameters.
 */
function takesQueryParameters(controller: object, handler: Function): boolean {
  const documented = (Reflect.getMetadata(DECORATORS.API_PARAMETERS, handler) ?? []) as { in?: string }[];
  if (documented.some((parameter) => parameter.in === 'query')) return true;
  const bound = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as object;
  return Object.keys(bound).some((key) => key.startsWith(`${RouteParamtypes.QUERY}:`));
}

/**
 * The last guard (after authentication, version, scope and rate limit, as validation comes after
 * them): a route that takes no query parameters refuses any, `400 invalid_parameter` (docs/api.md
 * §2), rather than ignoring what the client meant to ask.
 */
@Injectable()
export class QueryParametersGuard implements CanActivate {
  private readonly takesQuery = new WeakMap<object, boolean>();

  canActivate(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let takesQuery = this.takesQuery.get(handler);
    if (takesQuery === undefined) {
      takesQuery = takesQueryParameters(context.getClass(), handler);
      this.takesQuery.set(handler, takesQuery);
    }
    if (takesQuery) return true;
    const [name] = Object.keys(queryOf(context.switchToHttp().getRequest<Request>()));
    if (name !== undefined) throw ApiError.invalidParameter(name, `${name} is not a query parameter of this route`);
    return true;
  }
}

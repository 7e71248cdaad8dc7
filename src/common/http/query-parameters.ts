import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiQuery, type ApiQueryOptions } from '@nestjs/swagger';

const TAKES_QUERY = 'http:takes-query';

/**
 * Declares the query parameters a handler takes, which it then checks itself (their names, ranges
 * and filters). The pipeline acts on this declaration alone: QueryParametersGuard lets a query
 * reach a handler that has one and refuses any other, so the OpenAPI document, listing the same
 * parameters from it, describes what the service does rather than deciding it.
 */
export function QueryParameters(...parameters: [ApiQueryOptions, ...ApiQueryOptions[]]): MethodDecorator {
  return applyDecorators(SetMetadata(TAKES_QUERY, true), ...parameters.map((parameter) => ApiQuery(parameter)));
}

/** Whether `handler` declared query parameters with `@QueryParameters`. */
export function takesQueryParameters(handler: Function): boolean {
  return Reflect.getMetadata(TAKES_QUERY, handler) === true;
}

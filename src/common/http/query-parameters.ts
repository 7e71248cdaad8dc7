import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiQuery, type ApiQueryOptions } from '@nestjs/swagger';
import { ApiError } from '../errors/api-error';

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

/**
 * The integer a query parameter gives, from `min` to `max`, or undefined when it is absent. Up to 16
 * digits: enough for Number.MAX_SAFE_INTEGER, beyond which the range check refuses. Anything else
 * (not digits, given twice, `name[]=…`) is 400 `invalid_parameter` naming it and its range.
 */
export function integerQueryValue(raw: unknown, name: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' && /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
    throw ApiError.invalidParameter(name, `${name} must be ${range}`);
  }
  return value;
}

/**
 * The names a comma-separated query parameter lists (`types=a,b`), each trimmed, once each and
 * sorted (so that equal lists compare equal), or undefined when it is absent; an empty name or the
 * parameter given twice is 400 `invalid_parameter`: `${name} is a comma-separated list of ${what}`.
 */
export function nameListQueryValue(raw: unknown, name: string, what: string): string[] | undefined {
  if (raw === undefined) return undefined;
  const names = typeof raw === 'string' ? raw.split(',').map((item) => item.trim()) : [''];
  if (names.some((item) => item === '')) {
    throw ApiError.invalidParameter(name, `${name} is a comma-separated list of ${what}`);
  }
  return [...new Set(names)].sort();
}

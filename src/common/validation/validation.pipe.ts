import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from '../errors/api-error';

/** Constraints that say "wrong JSON type or outside an enum" (400), as opposed to a refused value (422). */
const TYPE_CONSTRAINTS = new Set([
  'isString',
  'isNumber',
  'isInt',
  'isBoolean',
  'isArray',
  'isObject',
  'isIn',
  'isEnum',
  'nestedValidation',
]);

function firstLeaf(error: ValidationError, prefix: string): { error: ValidationError; param: string } {
  const param = prefix ? `${prefix}.${error.property}` : error.property;
  if (!error.constraints && error.children?.length) return firstLeaf(error.children[0], param);
  return { error, param };
}

/** Maps a class-validator failure to the error body of decisions §2, naming the member in `param`. */
export function validationError(errors: ValidationError[]): ApiError {
  const { error, param } = firstLeaf(errors[0], '');
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  if (names.includes('whitelistValidation')) return ApiError.unknownField(param);
  if (error.value === undefined || error.value === null) return ApiError.missing(param);
  const message = constraints[names[0]] ?? `${param} is invalid`;
  if (names.some((name) => TYPE_CONSTRAINTS.has(name))) return new ApiError(400, 'invalid_type', message, param);
  return new ApiError(422, 'invalid_value', message, param);
}

/** The global pipe for static bodies and queries: whitelisted, transformed, our error body. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: true },
    exceptionFactory: validationError,
  });
}

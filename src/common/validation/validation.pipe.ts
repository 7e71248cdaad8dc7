import { ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
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
  // Every failed constraint of the member is reported (no stopAtFirstError: class-validator runs
  // the decorators bottom-up, so `@IsString() @Length()` would report the length of a number).
  const typeConstraint = names.find((name) => TYPE_CONSTRAINTS.has(name));
  if (typeConstraint) return new ApiError(400, 'invalid_type', constraints[typeConstraint], param);
  return new ApiError(422, 'invalid_value', constraints[names[0]] ?? `${param} is invalid`, param);
}

/** The global pipe for static bodies and queries: whitelisted, transformed, our error body. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: true },
    exceptionFactory: validationError,
  });
}

/**
 * Validates one entry of a map-shaped body member (e.g. `fields.priority` of a type definition)
 * with the same rules and error mapping as the global pipe, naming it `param` in errors.
 */
export function validateEntry<T extends object>(type: new () => T, value: unknown, param: string): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw ApiError.invalidType(param, 'an object');
  const instance = plainToInstance(type, value);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) {
    const [property, ...rest] = param.split('.');
    throw validationError([wrapUnder(rest, property, errors)]);
  }
  return instance;
}

function wrapUnder(path: string[], property: string, children: ValidationError[]): ValidationError {
  const error = new ValidationError();
  error.property = property;
  error.children = path.length ? [wrapUnder(path.slice(1), path[0], children)] : children;
  return error;
}

import { ArgumentMetadata, Injectable, PipeTransform, Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
import type { ParsedUrlQuery } from 'node:querystring';
import { ApiError } from '../errors/api-error';
import { isQueryDto, validateQuery } from '../http/query-parameters';
import { storable } from './storable-text';
import { declaredMembers, MapShape, memberShape } from './dto-shape';

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

/** Parameter types that are values, not bodies: the pipe leaves them alone. */
const VALUE_TYPES = new Set<unknown>([Object, String, Number, Boolean, Array, Date, Buffer, Map, Set, Function]);

const VALIDATOR_OPTIONS = {
  // The member walk below already refused unknown members; this also catches them in a nested
  // body declared without NestedDto.
  whitelist: true,
  forbidNonWhitelisted: true,
  // A body class without rules (e.g. one that takes no members) is valid when empty.
  forbidUnknownValues: false,
  validationError: { target: false, value: true },
};

function at(path: string, key: string | number): string {
  return path ? `${path}.${key}` : String(key);
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function firstLeaf(error: ValidationError, prefix: string): { error: ValidationError; param: string } {
  const param = at(prefix, error.property);
  if (!error.constraints && error.children?.length) return firstLeaf(error.children[0], param);
  return { error, param };
}

/**
 * class-validator names a member by its own name (`$property`), so a nested member's message read
 * `city must be a string`: it names the whole path, as `param` does.
 */
function messagesAt(error: ValidationError, param: string): Record<string, string> {
  const leading = `${error.property} `;
  return Object.fromEntries(
    Object.entries(error.constraints ?? {}).map(([name, message]) => [
      name,
      message.startsWith(leading) ? `${param} ${message.slice(leading.length)}` : message,
    ]),
  );
}

/** Maps a class-validator failure to the error body of docs/api.md §2, naming the member in `param`. */
function validationError(errors: ValidationError[], path = ''): ApiError {
  const { error, param } = firstLeaf(errors[0], path);
  const constraints = messagesAt(error, param);
  const names = Object.keys(constraints);
  if (names.includes('whitelistValidation')) return ApiError.unknownField(param);
  if (error.value === undefined || error.value === null) return ApiError.missing(param);
  // Every failed constraint of the member is reported (no stopAtFirstError: class-validator runs
  // the decorators bottom-up, so `@IsString() @Length()` would report the length of a number).
  const typeConstraint = names.find((name) => TYPE_CONSTRAINTS.has(name));
  if (typeConstraint) return new ApiError(400, 'invalid_type', constraints[typeConstraint], param);
  return new ApiError(422, 'invalid_value', constraints[names[0]] ?? `${param} is invalid`, param);
}

/**
 * The first text under a member's value that PostgreSQL cannot store (NUL, a lone surrogate), in
 * a key or a string. Iterative: free-form values are as deep as the body parser allows.
 */
function unstorableTextError(value: unknown, path: string): ApiError | undefined {
  const pending: [unknown, string][] = [[value, path]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, param] = next;
    if (typeof item === 'string') {
      if (!storable(item)) return unstorableError(param);
    } else if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index--) pending.push([item[index], at(param, index)]);
    } else if (item !== null && typeof item === 'object') {
      for (const key of Object.keys(item).reverse()) {
        if (!storable(key)) return unstorableError(at(param, key));
        pending.push([(item as Record<string, unknown>)[key], at(param, key)]);
      }
    }
  }
  return undefined;
}

/** A DtoMap member of one level of a body, validated entry by entry once the body's own rules pass. */
interface PendingMap {
  owner: Record<string, unknown>;
  key: string;
  shape: MapShape;
  map: Record<string, unknown>;
  param: string;
}

/**
 * Builds the instance of one level of a body of `type` from its own keys, nested bodies likewise.
 * Every own key must be a declared member (so `__proto__`, `constructor` or `toString` are unknown
 * fields, not prototype lookups), a nested body must be an object, never a string or array to be
 * read as one, and text must be storable before any validator sees it (validator.js's isEmail
 * throws on a lone surrogate). A null member is left out: null means absent, for optional and
 * required members alike. class-transformer makes the instance from the declared members that are
 * single values (honouring any @Type or @Transform a body class declares); nested bodies, arrays
 * and free-form members are set on it afterwards. A free-form member (a map whose keys the handler checks, such as a
 * meeting's `fields`) is handed over as sent, never copied: class-transformer's copy skips every
 * key whose name it finds on the copy's prototype (`hasOwnProperty`, `toString`), which would hide
 * keys from the handler, which would then accept them unseen.
 */
function instanceOf(
  type: Type<object>,
  raw: Record<string, unknown>,
  path: string,
  maps: PendingMap[],
): Record<string, unknown> {
  const declared = declaredMembers(type);
  const values: Record<string, unknown> = {};
  const built: Record<string, unknown> = {};
  const ownMaps: Omit<PendingMap, 'owner'>[] = [];
  for (const key of Object.keys(raw)) {
    const param = at(path, key);
    if (!declared.has(key)) throw ApiError.unknownField(param);
    const value = raw[key];
    if (value === null || value === undefined) continue;
    const shape = memberShape(type, key);
    if (shape?.kind === 'map') {
      if (!isJsonObject(value)) throw ApiError.invalidType(param, 'an object');
      ownMaps.push({ key, shape, map: value, param });
      built[key] = {};
    } else if (shape?.kind === 'nested') {
      const body = (item: unknown, itemParam: string) => {
        if (!isJsonObject(item)) throw ApiError.invalidType(itemParam, 'an object');
        return instanceOf(shape.type(), item, itemParam, maps);
      };
      if (!shape.each) {
        built[key] = body(value, param);
      } else {
        if (!Array.isArray(value)) throw ApiError.invalidType(param, 'an array of objects');
        built[key] = value.map((item, index) => body(item, at(param, index)));
      }
    } else {
      const problem = unstorableTextError(value, param);
      if (problem) throw problem;
      if (typeof value === 'object') built[key] = value;
      else values[key] = value;
    }
  }
  const instance = Object.assign(plainToInstance(type, values) as Record<string, unknown>, built);
  for (const map of ownMaps) maps.push({ owner: instance, ...map });
  return instance;
}

/** Each entry of a DtoMap member validated as a body of its own, in a null-prototype object. */
function validateMap(
  { type, keyMember }: MapShape,
  map: Record<string, unknown>,
  path: string,
): Record<string, object> {
  const entries = Object.create(null) as Record<string, object>;
  for (const key of Object.keys(map)) {
    const entry = map[key];
    const param = at(path, key);
    if (!storable(key)) throw unstorableError(param);
    if (!isJsonObject(entry)) throw ApiError.invalidType(param, 'an object');
    entries[key] = validateEntry(type(), keyMember ? { ...entry, [keyMember]: key } : entry, param);
  }
  return entries;
}

function unstorableError(param: string): ApiError {
  return ApiError.invalidValue(param, `${param} contains NUL or unpaired surrogate characters`);
}

/**
 * Validates `value` as a body of `type` (docs/api.md §2) and returns the instance: unknown members
 * 400 `unknown_field`, a wrong type 400 `invalid_type`, an absent or null required member 422
 * `parameter_missing`, a refused value 422 `invalid_value`, text PostgreSQL cannot store 422
 * `invalid_value`. Params are dotted and prefixed with `path` (e.g. `fields.priority`).
 * The cost is linear in the size of `value`.
 */
export function validateEntry<T extends object>(type: Type<T>, value: unknown, path: string): T {
  if (!isJsonObject(value)) throw ApiError.invalidType(path || 'body', 'an object');
  const maps: PendingMap[] = [];
  const instance = instanceOf(type, value, path, maps);
  const errors = validateSync(instance, VALIDATOR_OPTIONS);
  if (errors.length > 0) throw validationError(errors, path);
  for (const { owner, key, shape, map, param } of maps) owner[key] = validateMap(shape, map, param);
  return instance as T;
}

/**
 * The global pipe for static bodies, validated by validateEntry, and query DTOs, validated by
 * validateQuery. Handlers that take `unknown` (record bodies, which the records core validates)
 * and single values (`@Param('id')`) pass through untouched.
 */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  transform(value: unknown, { type, metatype }: ArgumentMetadata): unknown {
    if (type === 'query' && isQueryDto(metatype)) return validateQuery(metatype, (value ?? {}) as ParsedUrlQuery);
    if (type !== 'body' || !metatype || VALUE_TYPES.has(metatype)) return value;
    // No body at all is an empty one: a body class whose members are all optional accepts it.
    return validateEntry(metatype as Type<object>, value ?? {}, '');
  }
}

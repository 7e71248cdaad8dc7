import { applyDecorators, SetMetadata, Type } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import { ApiProperty } from '@nestjs/swagger';
import {
  ArrayNotEmpty,
  IsDefined,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateBy,
  validateSync,
  type ValidationArguments,
} from 'class-validator';
import type { ParsedUrlQuery } from 'node:querystring';
import { ApiError } from '../errors/api-error';
import { declaredMembers } from '../validation/dto-shape';

/**
 * Query DTOs: a handler takes its query as `@Query() query: SomeQueryDto`, a class whose members
 * are declared with the decorators below. Each decorator is both the member's rules (class-transformer
 * conversions and class-validator checks) and its OpenAPI parameter, written from the same
 * arguments: whether it is required, its type and its bounds (minimum, maximum, minLength,
 * maxLength, pattern) cannot say other than what is enforced (docs/api.md §3). DtoValidationPipe
 * validates it with validateQuery; every failure is 400 `invalid_parameter` naming the parameter.
 * A value given twice (`limit=1&limit=2`) arrives as an array and fails its member's rule;
 * `limit[]=1` is another name, not a member.
 */

/** What the document says of a parameter beside the type and bounds its decorator writes. */
export interface QueryParameterDoc {
  description?: string;
  example?: string | number;
  default?: string | number;
  /** A request without it is refused: 400 `invalid_parameter`, `<name> is required`. */
  required?: boolean;
}

/** The OpenAPI schema members of a parameter that its rules decide. */
interface ParameterSchema {
  type: 'integer' | 'string';
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/** The classes with members declared by the decorators below: the handlers' query DTOs. */
const QUERY_DTOS = new WeakSet<object>();

function queryMember(
  schema: ParameterSchema,
  { required = false, ...doc }: QueryParameterDoc,
  ...rules: PropertyDecorator[]
): PropertyDecorator {
  return (prototype, property) => {
    QUERY_DTOS.add(prototype.constructor);
    const presence = required ? IsDefined({ message: `${String(property)} is required` }) : IsOptional();
    applyDecorators(ApiProperty({ ...doc, ...schema, required }), presence, ...rules)(prototype, property);
  };
}

/**
 * An integer from `min` to `max`, in up to 16 digits (enough for Number.MAX_SAFE_INTEGER, beyond
 * which the range refuses): anything else, a sign, a fraction, an exponent or spaces included,
 * is refused naming the range.
 */
export function QueryInteger(
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  doc: QueryParameterDoc = {},
): PropertyDecorator {
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
  const message = ({ property }: ValidationArguments) => `${property} must be ${range}`;
  return queryMember(
    { type: 'integer', minimum: min, maximum: max },
    doc,
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value,
    ),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  );
}

/** A comma-separated list whose every name holds a character other than a space. */
const NAME_LIST = /^[^,]*[^,\s][^,]*(?:,[^,]*[^,\s][^,]*)*$/;

/**
 * A comma-separated list of names (`types=a,b`), each trimmed, once each and sorted (so that equal
 * lists compare equal); an empty name is refused: `${property} is a comma-separated list of ${what}`.
 */
export function QueryNameList(what: string, doc: QueryParameterDoc = {}): PropertyDecorator {
  return queryMember(
    { type: 'string', pattern: NAME_LIST.source },
    doc,
    // Anything but a list of the pattern (given twice, too) becomes no names, which the rule refuses.
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && NAME_LIST.test(value)
        ? [...new Set(value.split(',').map((name) => name.trim()))].sort()
        : [],
    ),
    ArrayNotEmpty({ message: ({ property }) => `${property} is a comma-separated list of ${what}` }),
  );
}

/** What text must be, beside a string given once: lengths in characters (code points, as JSON Schema counts them). */
export interface TextBounds {
  minLength?: number;
  maxLength?: number;
  pattern?: RegExp;
}

/**
 * Text given once, within `bounds`, else refused with `message`; `checks` are what else it must be
 * (each with its own message, and no part of the document).
 */
export function QueryText(
  message: string,
  { bounds = {}, checks = [], ...doc }: QueryParameterDoc & { bounds?: TextBounds; checks?: PropertyDecorator[] } = {},
): PropertyDecorator {
  const { minLength, maxLength, pattern } = bounds;
  const length = (text: string) => [...text].length;
  return queryMember(
    { type: 'string', minLength, maxLength, pattern: pattern?.source },
    doc,
    ...checks,
    ...(minLength === undefined && maxLength === undefined
      ? []
      : [
          TextThat(
            'textLength',
            (text) => length(text) >= (minLength ?? 0) && length(text) <= (maxLength ?? Infinity),
            message,
          ),
        ]),
    ...(pattern ? [TextThat('textPattern', (text) => pattern.test(text), message)] : []),
    IsString({ message }),
  );
}

/** Text that `accepts`, else refused with `message`. */
export function TextThat(name: string, accepts: (text: string) => boolean, message: string): PropertyDecorator {
  return ValidateBy({
    name,
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || accepts(value),
      defaultMessage: () => message,
    },
  });
}

/** A cursor given once: what it holds is for its list to check. */
export function QueryCursor(doc: QueryParameterDoc = {}): PropertyDecorator {
  return QueryText('cursor must be given once', doc);
}

/** A parameter the handler checks itself, taken as it came: a string, or an array when given twice. */
export function QueryAsSent(doc: QueryParameterDoc = {}): PropertyDecorator {
  return queryMember({ type: 'string' }, doc);
}

/** The query DTOs whose handlers ignore the parameters they do not declare (OtherParametersIgnored). */
const IGNORING_OTHERS = new WeakSet<object>();

/**
 * On a query DTO: parameters it does not declare are ignored rather than refused. For a signed
 * URL's query: the URL is handed out whole, and what a client or proxy adds beside the signed
 * parameters changes nothing they authorise.
 */
export function OtherParametersIgnored(): ClassDecorator {
  return (type) => {
    IGNORING_OTHERS.add(type);
  };
}

const ignore = () => undefined;

/**
 * The query as an instance of the query DTO `type`, its values converted by the DTO's
 * class-transformer decorators and checked by its class-validator rules: 400 `invalid_parameter`
 * for the first parameter that fails one, with that rule's message. A parameter the DTO does not
 * declare is refused first; given `other`, each is handed to it instead once the declared ones
 * passed (a paged list's filters), and ignored on a DTO marked OtherParametersIgnored.
 */
export function validateQuery<T extends object>(
  type: Type<T>,
  query: ParsedUrlQuery,
  other?: (name: string, value: string | string[]) => void,
): T {
  other ??= IGNORING_OTHERS.has(type) ? ignore : undefined;
  const members = declaredMembers(type);
  const given: Record<string, unknown> = {};
  const others: string[] = [];
  for (const name of Object.keys(query)) {
    if (members.has(name)) given[name] = query[name];
    else if (other) others.push(name);
    else throw ApiError.invalidParameter(name, `${name} is not a query parameter of this route`);
  }
  const instance = plainToInstance(type, given);
  const [failure] = validateSync(instance, { stopAtFirstError: true });
  if (failure) {
    const [message] = Object.values(failure.constraints ?? {});
    throw ApiError.invalidParameter(failure.property, message ?? `${failure.property} is invalid`);
  }
  for (const name of others) other!(name, query[name]!);
  return instance;
}

/** Whether `type` is a query DTO (a class with members declared as query parameters). */
export function isQueryDto(type: unknown): type is Type<object> {
  return typeof type === 'function' && QUERY_DTOS.has(type);
}

const TAKES_QUERY = 'http:takes-query';

/** Marks a handler that takes a query it reads otherwise than as a `@Query()` DTO (a paged list's, see Paginated). */
export function TakesQuery(): MethodDecorator {
  return SetMetadata(TAKES_QUERY, true);
}

const TAKES_QUERY_BY_HANDLER = new WeakMap<Function, boolean>();

/**
 * Whether `handler`, a method of `controller`, declares query parameters: a query DTO is among the
 * parameter types TypeScript compiled it with, or it is marked with TakesQuery. Read once per handler.
 */
export function takesQueryParameters(controller: Function, handler: Function): boolean {
  let takes = TAKES_QUERY_BY_HANDLER.get(handler);
  if (takes === undefined) {
    const parameterTypes =
      (Reflect.getMetadata('design:paramtypes', controller.prototype as object, handler.name) as
        unknown[] | undefined) ?? [];
    takes = Reflect.getMetadata(TAKES_QUERY, handler) === true || parameterTypes.some(isQueryDto);
    TAKES_QUERY_BY_HANDLER.set(handler, takes);
  }
  return takes;
}

import { applyDecorators, SetMetadata, Type } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import {
  getMetadataStorage,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateBy,
  type ValidationArguments,
  ValidationTypes,
} from 'class-validator';
import type { ParsedUrlQuery } from 'node:querystring';
import { ApiError } from '../errors/api-error';

/**
 * Query DTOs: a handler takes its query as `@Query() query: SomeQueryDto`, a class whose members
 * are declared with the decorators below (and documented with `@ApiPropertyOptional`, from which
 * the OpenAPI parameters come). DtoValidationPipe validates it with validateQuery; every failure
 * is 400 `invalid_parameter` naming the parameter. A value given twice (`limit=1&limit=2`) arrives
 * as an array and fails its member's rule; `limit[]=1` is another name, not a member.
 */

/** The classes with members declared by the decorators below: the handlers' query DTOs. */
const QUERY_DTOS = new WeakSet<object>();

function queryMember(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (prototype, property) => {
    QUERY_DTOS.add(prototype.constructor);
    applyDecorators(IsOptional(), ...decorators)(prototype, property);
  };
}

/**
 * An integer from `min` to `max`, in up to 16 digits (enough for Number.MAX_SAFE_INTEGER, beyond
 * which the range refuses): anything else, a sign, a fraction, an exponent or spaces included,
 * is refused naming the range.
 */
export function QueryInteger(min: number, max = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
  const message = ({ property }: ValidationArguments) => `${property} must be ${range}`;
  return queryMember(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value,
    ),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  );
}

/**
 * A comma-separated list of names (`types=a,b`), each trimmed, once each and sorted (so that equal
 * lists compare equal); an empty name is refused: `${property} is a comma-separated list of ${what}`.
 */
export function QueryNameList(what: string): PropertyDecorator {
  return queryMember(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? [...new Set(value.split(',').map((name) => name.trim()))].sort() : [''],
    ),
    IsNotEmpty({ each: true, message: ({ property }) => `${property} is a comma-separated list of ${what}` }),
  );
}

/** Text given once, else refused with `message`; `checks` are what else it must be (each with its own message). */
export function QueryText(message: string, ...checks: PropertyDecorator[]): PropertyDecorator {
  return queryMember(...checks, IsString({ message }));
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
export function QueryCursor(): PropertyDecorator {
  return QueryText('cursor must be given once');
}

/** A parameter the handler checks itself (a signed URL's), taken as it came: a string, or an array when given twice. */
export function QueryAsSent(): PropertyDecorator {
  return queryMember();
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

/** One class-validator rule of a query DTO's member, resolved once. */
interface MemberRule {
  /** Why `value` of `property` of `object` fails the rule, or undefined when it passes. */
  failure(object: object, property: string, value: unknown): string | undefined;
}

/** A query DTO's members and their rules, in declaration order. */
type CompiledQuery = Map<string, MemberRule[]>;

const COMPILED = new WeakMap<Function, CompiledQuery>();

/**
 * The rules of `type` as class-validator declares them, read once: validateSync would look them up,
 * inherited ones included, and group them on every call, most of the cost of checking a query of
 * two parameters. Every member is optional (queryMember), so only values given are checked; a
 * member declared with `each` holds a list, each of whose items must pass.
 */
function compiledQuery(type: Type<object>): CompiledQuery {
  let compiled = COMPILED.get(type);
  if (compiled) return compiled;
  compiled = new Map();
  const storage = getMetadataStorage();
  for (const rule of storage.getTargetValidationMetadatas(type, '', true, false)) {
    const rules = compiled.get(rule.propertyName) ?? [];
    compiled.set(rule.propertyName, rules);
    if (rule.type !== ValidationTypes.CUSTOM_VALIDATION) continue;
    for (const { instance: validator } of storage.getTargetValidatorConstraints(rule.constraintCls)) {
      rules.push({
        failure(object, property, value) {
          const args: ValidationArguments = {
            value,
            constraints: rule.constraints,
            targetName: type.name,
            object,
            property,
          };
          const passes = (item: unknown) => validator.validate(item, args) === true;
          if (rule.each && Array.isArray(value) ? value.every(passes) : passes(value)) return undefined;
          const message = rule.message ?? validator.defaultMessage?.(args) ?? '$property is invalid';
          return (typeof message === 'function' ? message(args) : message).replaceAll('$property', property);
        },
      });
    }
  }
  COMPILED.set(type, compiled);
  return compiled;
}

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
  const compiled = compiledQuery(type);
  const given: Record<string, unknown> = {};
  const others: string[] = [];
  let members = 0;
  for (const name of Object.keys(query)) {
    if (compiled.has(name)) {
      given[name] = query[name];
      members++;
    } else if (other) others.push(name);
    else throw ApiError.invalidParameter(name, `${name} is not a query parameter of this route`);
  }
  // A list read without paging parameters, the commonest, converts nothing.
  const instance = (members === 0 ? new type() : plainToInstance(type, given)) as T & Record<string, unknown>;
  for (const [property, rules] of compiled) {
    const value = instance[property];
    if (value === undefined) continue;
    for (const rule of rules) {
      const failure = rule.failure(instance, property, value);
      if (failure !== undefined) throw ApiError.invalidParameter(property, failure);
    }
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

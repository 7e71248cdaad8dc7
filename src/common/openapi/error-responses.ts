import { getSchemaPath, type OpenAPIObject, type OperationObject, type ResponseObject } from '@nestjs/swagger';
import { ERROR_CODES, type ErrorCode, type ErrorStatus } from '../errors/error-codes';
import {
  catalogueOrder,
  errorCodesOf,
  errorExample,
  errorStatusDescription,
  namedErrorCodes,
  namedErrorCodeSets,
} from '../errors/error-responses';
import { ErrorResponseDto } from '../errors/error-response.dto';
import { type OperationHandler, operationsByPath } from './operation-handlers';
import { pipelineHeaders, pipelineOf } from './response-headers';

const COMPONENT_RESPONSE = '#/components/responses/';

/** What the JSON body parser refuses on every `/v1` and operator route, whatever the method (docs/api.md §1). */
const BODY_PARSER_ERRORS = [
  'invalid_json',
  'payload_too_large',
  'unsupported_media_type',
] as const satisfies readonly ErrorCode[];

/** What validating a JSON body answers (DtoValidationPipe, the records core's own validation, a NUL PostgreSQL refuses). */
const BODY_VALIDATION_ERRORS = namedErrorCodes('BodyValidation', [
  'unknown_field',
  'invalid_type',
  'parameter_missing',
  'invalid_value',
]);

/**
 * The codes an operation answers that follow from the operation itself rather than its handler's
 * decorators: any can fail unexpectedly; the JSON body parser reads a body sent to any `/v1` and
 * operator route; a route that declares no query parameters refuses any (QueryParametersGuard); a
 * JSON body is validated; an id in the path can name nothing.
 */
function derivedCodes(path: string, operation: OperationObject): ErrorCode[] {
  const codes: ErrorCode[] = ['internal_error'];
  if (/^\/(v1|admin)\//.test(path)) codes.push(...BODY_PARSER_ERRORS);
  const takesQuery = (operation.parameters ?? []).some((parameter) => 'in' in parameter && parameter.in === 'query');
  if (!takesQuery) codes.push('invalid_parameter');
  const body = operation.requestBody;
  if (body && ('$ref' in body || body.content['application/json'])) codes.push(...BODY_VALIDATION_ERRORS);
  if (path.includes('{')) codes.push('not_found');
  return codes;
}

/** `codes` by their status, in ascending order of status. */
function byStatus(codes: readonly ErrorCode[]): [ErrorStatus, ErrorCode[]][] {
  const grouped = new Map<ErrorStatus, ErrorCode[]>();
  for (const code of catalogueOrder(codes)) {
    const { status } = ERROR_CODES[code];
    grouped.set(status, [...(grouped.get(status) ?? []), code]);
  }
  return [...grouped].sort(([a], [b]) => a - b);
}

/**
 * The name of the shared response of a status, a set of codes and a set of headers: `E`, the status,
 * the codes that tell it from the other responses of its status and metering (`common`, the codes
 * all of those list, would be in every name: the description lists them), and `Unmetered` for an
 * operation outside the rate limits, whose answers carry none of its headers. Where those codes
 * include all of a named set's codes of the status (two or more), the set's name stands for them.
 * `E401` is the 401 every operation answers.
 */
function responseName(
  status: ErrorStatus,
  codes: readonly ErrorCode[],
  common: ReadonlySet<ErrorCode>,
  metered: boolean,
): string {
  const pascal = (name: string) =>
    name.replace(/(^|_)([a-z])/g, (_match, _separator, letter: string) => letter.toUpperCase());
  const parts = new Map(codes.filter((code) => !common.has(code)).map((code) => [code, pascal(code)]));
  for (const [name, set] of namedErrorCodeSets()) {
    const ofStatus = set.filter((code) => ERROR_CODES[code].status === status);
    if (ofStatus.length < 2 || !ofStatus.every((code) => parts.get(code) === pascal(code))) continue;
    parts.set(ofStatus[0], name);
    for (const code of ofStatus.slice(1)) parts.delete(code);
  }
  return [`E${status}`, ...parts.values(), ...(metered ? [] : ['Unmetered'])].join('_');
}

/** A status and whether its answers are metered: what responses of the same name share. */
const kindOf = ({ status, metered }: { status: ErrorStatus; metered: boolean }) => `${status} ${metered}`;

/** Of each status and metering (kindOf), the codes every one of `answers` of that kind lists. */
function commonCodes(
  answers: readonly { status: ErrorStatus; codes: readonly ErrorCode[]; metered: boolean }[],
): Map<string, Set<ErrorCode>> {
  const common = new Map<string, Set<ErrorCode>>();
  for (const answer of answers) {
    const seen = common.get(kindOf(answer));
    common.set(kindOf(answer), new Set(seen ? answer.codes.filter((code) => seen.has(code)) : answer.codes));
  }
  return common;
}

/**
 * Lists on every operation the error codes it can answer, and only those: the ones its handler's
 * decorators give it (`ApiErrors`, through `@Endpoint`, `@AdminRoute`, `@Paginated`) and the ones the
 * operation's own shape implies (derivedCodes). Each status of an operation is a reference to a
 * response of `components.responses`, one per status, set of codes and set of headers, shared by every
 * operation that answers the same: the description of each code, an example, the ErrorResponseDto
 * schema and the pipeline headers are written once.
 *
 * An error status documented by hand (`@ApiResponse`) that no code of the operation has is a mistake
 * this refuses to build: the codes are what a status is documented from.
 */
export function documentErrorResponses(document: OpenAPIObject, handlers: Map<string, OperationHandler>): void {
  const answers: {
    operation: OperationObject;
    status: ErrorStatus;
    codes: ErrorCode[];
    headers: string[];
    metered: boolean;
  }[] = [];
  for (const { path, operation } of operationsByPath(document)) {
    const handler = operation.operationId ? handlers.get(operation.operationId)?.handler : undefined;
    const pipeline = pipelineOf(handler);
    const grouped = byStatus([...derivedCodes(path, operation), ...(handler ? errorCodesOf(handler) : [])]);
    const statuses = new Set<string>(grouped.map(([status]) => String(status)));
    for (const status of Object.keys(operation.responses)) {
      if (Number(status) >= 400 && !statuses.has(status)) {
        throw new Error(`${operation.operationId ?? path} documents ${status}, a status none of its error codes has`);
      }
    }
    for (const [status, codes] of grouped) {
      const headers = pipelineHeaders(String(status), pipeline);
      const metered = headers.join() === pipelineHeaders(String(status), { ...pipeline, rateLimited: true }).join();
      answers.push({ operation, status, codes, headers, metered });
    }
  }
  const common = commonCodes(answers);
  const shared: Record<string, ResponseObject> = {};
  for (const { operation, status, codes, headers, metered } of answers) {
    const name = responseName(status, codes, common.get(kindOf({ status, metered }))!, metered);
    const description = errorStatusDescription(status, codes);
    if (shared[name] && shared[name].description !== description) {
      throw new Error(`two sets of ${status} codes are both named ${name}`);
    }
    shared[name] ??= {
      description,
      headers: Object.fromEntries(headers.map((header) => [header, { $ref: `#/components/headers/${header}` }])),
      content: {
        'application/json': { schema: { $ref: getSchemaPath(ErrorResponseDto) }, example: errorExample(status, codes) },
      },
    };
    operation.responses[String(status)] = { $ref: `${COMPONENT_RESPONSE}${name}` };
  }
  for (const { operation } of operationsByPath(document)) {
    operation.responses = Object.fromEntries(
      Object.entries(operation.responses).sort(([a], [b]) => Number(a) - Number(b)),
    );
  }
  const sorted = Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b)));
  document.components = { ...document.components, responses: { ...document.components?.responses, ...sorted } };
}

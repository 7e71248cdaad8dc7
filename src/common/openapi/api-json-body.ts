import { applyDecorators, Type } from '@nestjs/common';
import { ApiBody, ApiExtraModels, getSchemaPath } from '@nestjs/swagger';

/** A request body example as Swagger UI offers it: pre-filled in "Try it out", named by `summary`. */
export interface BodyExample {
  summary: string;
  value: unknown;
}

/**
 * A JSON request body with an example Swagger UI pre-fills verbatim. Without one it generates a
 * body from the schema (`"additionalProp1": {}` for open maps, `"string"` for ids) that the
 * service refuses; every JSON body of the API is documented through this decorator so that the
 * pre-filled body is one that succeeds (test/e2e/openapi-examples.e2e-spec.ts executes them all).
 */
export function ApiJsonBody(
  body: Type<unknown> | Record<string, unknown>,
  example: BodyExample,
  required = true,
): MethodDecorator {
  const isModel = typeof body === 'function';
  return applyDecorators(
    ...(isModel ? [ApiExtraModels(body)] : []),
    ApiBody({ schema: isModel ? { $ref: getSchemaPath(body) } : body, examples: { example }, required }),
  );
}

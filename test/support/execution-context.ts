import type { ExecutionContext, Type } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';

/** An HTTP ExecutionContext for unit tests of guards: the request, a handler and its class. */
export function httpContext(
  request: Record<string, unknown>,
  handler: (...args: unknown[]) => unknown = () => undefined,
  controller: Type<unknown> = class TestController {},
): ExecutionContext {
  return new ExecutionContextHost([request, {}, () => undefined], controller, handler);
}

import type { OpenAPIObject } from '@nestjs/swagger';
import { AUTH_MODE, type AuthMode } from '../auth/auth.decorators';
import { type OperationHandler, operationsOf } from './operation-handlers';

/** The route's mode as AuthGuard reads it: the handler's, else its controller's, else an API key. */
function authModeOf({ handler, controller }: OperationHandler): AuthMode {
  return (Reflect.getMetadata(AUTH_MODE, handler) ?? Reflect.getMetadata(AUTH_MODE, controller) ?? 'apiKey') as AuthMode;
}

/**
 * `security: []` on every operation AuthGuard lets through without credentials (`@Public()`): an
 * operation without `security` would leave a reader, or a linter, to guess.
 */
export function documentPublicOperations(document: OpenAPIObject, handlers: Map<string, OperationHandler>): void {
  for (const operation of operationsOf(document)) {
    const handler = operation.operationId ? handlers.get(operation.operationId) : undefined;
    if (handler && authModeOf(handler) === 'public') operation.security = [];
  }
}

import type { OpenAPIObject } from '@nestjs/swagger';
import { authModeOf } from '../auth/auth.decorators';
import { type OperationHandler, operationsOf } from './operation-handlers';

/**
 * `security: []` on every operation AuthGuard lets through without credentials (`@Public()`): an
 * operation without `security` would leave a reader, or a linter, to guess.
 */
export function documentPublicOperations(document: OpenAPIObject, handlers: Map<string, OperationHandler>): void {
  for (const operation of operationsOf(document)) {
    const handler = operation.operationId ? handlers.get(operation.operationId) : undefined;
    if (handler && authModeOf(handler.handler, handler.controller) === 'public') operation.security = [];
  }
}

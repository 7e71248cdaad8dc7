import type { OpenAPIObject, SecurityRequirementObject } from '@nestjs/swagger';
import { API_KEY_SECURITY, authModeOf } from '../auth/auth.decorators';
import { type OperationHandler, operationsOf } from './operation-handlers';

/**
 * The API key as the document's default security, which an operation states only where it differs
 * (the operator token); `security: []` on every operation AuthGuard lets through without credentials
 * (`@Public()`), which would otherwise inherit the API key.
 */
export function documentOperationSecurity(document: OpenAPIObject, handlers: Map<string, OperationHandler>): void {
  const apiKey: SecurityRequirementObject[] = [{ [API_KEY_SECURITY]: [] }];
  document.security = apiKey;
  for (const operation of operationsOf(document)) {
    const handler = operation.operationId ? handlers.get(operation.operationId) : undefined;
    if (handler && authModeOf(handler.handler, handler.controller) === 'public') operation.security = [];
    else if (JSON.stringify(operation.security) === JSON.stringify(apiKey)) delete operation.security;
  }
}

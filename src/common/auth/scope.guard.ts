import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error';
import { AuthenticatedRequest } from './auth-context';
import { REQUIRED_SCOPES } from './auth.decorators';
import type { Scope } from './scopes';

/** Third global guard: every scope named by `@Endpoint({ scopes })` must be granted. */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.get<Scope[] | undefined>(REQUIRED_SCOPES, context.getHandler()) ?? [];
    if (required.length === 0) return true;
    const { auth } = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const missing = required.filter((scope) => !auth?.scopes.has(scope));
    if (missing.length === 0) return true;
    throw new ApiError(
      403,
      'insufficient_scope',
      `This operation requires the scope${required.length > 1 ? 's' : ''} ${required.join(' and ')}; missing: ${missing.join(', ')}`,
    );
  }
}

import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthenticatedRequest } from './auth-context';
import { REQUIRED_SCOPES } from './auth.decorators';
import { insufficientScope, type Scope } from './scopes';

/** Third global guard: every scope named by `@Endpoint({ scopes })` must be granted. */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.get<Scope[] | undefined>(REQUIRED_SCOPES, context.getHandler()) ?? [];
    if (required.length === 0) return true;
    const { auth } = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const granted = auth?.scopes ?? new Set<Scope>();
    if (required.every((scope) => granted.has(scope))) return true;
    throw insufficientScope('This operation', required, granted);
  }
}

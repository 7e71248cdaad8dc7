import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';
import { looksLikeApiKey, secretsEqual } from './api-key-secret';
import { ApiKeysService } from './api-keys.service';
import { AuthenticatedRequest } from './auth-context';
import { authModeOf } from './auth.decorators';
import { AuthFailureLimiter } from './auth-failure-limiter';

function bearerToken(request: Request): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  return match?.[1];
}

/**
 * First of the global guards: routes are closed unless marked `@Public()`. `/v1` routes take an
 * API key (looked up by its SHA-256, so a revoked key fails at once); operator routes take the
 * ADMIN_TOKEN. Every failure is counted per client address.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly config: AppConfig,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const mode = authModeOf(context.getHandler(), context.getClass());
    if (mode === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = bearerToken(request);
    if (mode === 'admin') {
      if (!this.config.adminToken) throw ApiError.notFound('Route');
      if (token !== undefined && secretsEqual(token, this.config.adminToken)) return true;
      throw await this.failures.fail(request, new ApiError(401, 'invalid_api_key', 'Invalid or missing admin token'));
    }
    const auth = token !== undefined && looksLikeApiKey(token) ? await this.apiKeys.authenticate(token) : undefined;
    if (!auth) {
      throw await this.failures.fail(
        request,
        new ApiError(401, 'invalid_api_key', 'Missing, unknown or revoked API key; send Authorization: Bearer <key>'),
      );
    }
    request.auth = auth;
    return true;
  }
}

import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AuthenticatedRequest } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';
import { SERVICE_VERSION, SERVICE_VERSION_HEADER } from './service-version';

/** Second global guard: an authenticated `/v1` request must say `Service-Version: 2026-03-01`. */
@Injectable()
export class ServiceVersionGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request & Partial<AuthenticatedRequest>>();
    if (!request.auth) return true; // public and operator routes are not versioned
    const version = request.headers[SERVICE_VERSION_HEADER];
    if (version === SERVICE_VERSION) return true;
    throw new ApiError(
      400,
      'version_header',
      version === undefined
        ? `The Service-Version header is required; send Service-Version: ${SERVICE_VERSION}`
        : `Unsupported Service-Version "${String(version)}"; this service speaks ${SERVICE_VERSION}`,
      'Service-Version',
    );
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';

const WINDOW_MS = 60_000;

/**
 * Limits failed authentications per client address (docs/api.md §4), in the throttler's storage so
 * that several instances share the count through Redis. After the limit, failures answer 429.
 */
@Injectable()
export class AuthFailureLimiter {
  constructor(
    @Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage,
    private readonly config: AppConfig,
  ) {}

  /** Counts one failure and returns the error to answer with: 401, or 429 once over the limit. */
  async fail(request: Request, unauthorized: ApiError): Promise<ApiError> {
    const limit = this.config.authFailureLimit.perMinute;
    const { isBlocked, timeToBlockExpire } = await this.storage.increment(
      `auth-failure:${request.ip}`,
      WINDOW_MS,
      limit,
      WINDOW_MS,
      'auth-failure',
    );
    if (!isBlocked) return unauthorized;
    return new ApiError(429, 'rate_limited', 'Too many failed authentication attempts', undefined, {
      'Retry-After': String(Math.max(1, timeToBlockExpire)),
    });
  }
}

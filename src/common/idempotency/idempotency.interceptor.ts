import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { from, lastValueFrom, Observable } from 'rxjs';
import { isAuthenticated } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';
import { IdempotentRequests } from './idempotent-requests';
import { PREPARES_OUTSIDE_TRANSACTION } from './prepared-writes';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

function readKey(request: Request): string | undefined {
  const raw = request.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(',') : raw;
  if (key.length === 0) {
    throw ApiError.invalidParameter('Idempotency-Key', 'Idempotency-Key must not be empty');
  }
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ApiError(
      400,
      'idempotency_key_too_long',
      `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} bytes`,
      'Idempotency-Key',
    );
  }
  return key;
}

/**
 * `Idempotency-Key` on every write under `/v1`, a POST or a DELETE (docs/api.md §5): a write sent
 * with one runs through IdempotentRequests, in one transaction with its stored response, or
 * outside any transaction on a route marked PreparesOutsideTransaction.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly requests: IdempotentRequests,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if ((request.method !== 'POST' && request.method !== 'DELETE') || !isAuthenticated(request)) return next.handle();
    const key = readKey(request);
    if (key === undefined) return next.handle();
    const response = context.switchToHttp().getResponse<Response>();
    const handle = () => lastValueFrom(next.handle());
    if (this.reflector.get<boolean>(PREPARES_OUTSIDE_TRANSACTION, context.getHandler())) {
      return from(this.requests.runPrepared(request, response, key, handle));
    }
    return from(this.requests.run(request, response, key, handle));
  }
}

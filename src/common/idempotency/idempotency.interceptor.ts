import { createHash } from 'node:crypto';
import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, lastValueFrom, Observable } from 'rxjs';
import { EntityManager } from 'typeorm';
import { Transactions } from '../../database/transactions';
import { AuthenticatedRequest, isAuthenticated } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const RETENTION = '24 hours';
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** Sorted keys, so that the same JSON sent with its members in another order is the same body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(request: Request): string {
  return createHash('sha256')
    .update(`${request.method} ${request.originalUrl}\n${canonicalJson(request.body ?? {})}`)
    .digest('hex');
}

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
      `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
      'Idempotency-Key',
    );
  }
  return key;
}

/**
 * `Idempotency-Key` on every POST under `/v1` (decisions §5). The request runs in one transaction
 * that first takes a transaction-scoped advisory lock on (API key, Idempotency-Key): a duplicate
 * arriving while the first runs cannot take it and gets 409. The first success's response is
 * inserted in that same transaction, so the write and its stored response commit or vanish
 * together, across instances and crashes; errors roll back and leave nothing stored.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly transactions: Transactions) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (request.method !== 'POST' || !isAuthenticated(request)) return next.handle();
    const key = readKey(request);
    if (key === undefined) return next.handle();
    const response = context.switchToHttp().getResponse<Response>();
    return from(
      this.transactions.run((manager) => this.runOnce(manager, request, response, key, () => lastValueFrom(next.handle()))),
    );
  }

  private async runOnce(
    manager: EntityManager,
    request: AuthenticatedRequest,
    response: Response,
    key: string,
    operation: () => Promise<unknown>,
  ): Promise<unknown> {
    const apiKeyId = request.auth.apiKeyId;
    const [{ locked }] = (await manager.query(
      `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked`,
      [`idempotency:${apiKeyId}:${key}`],
    )) as [{ locked: boolean }];
    if (!locked) {
      throw new ApiError(
        409,
        'idempotency_conflict',
        'A request with this Idempotency-Key is still being processed; retry after it completes',
        'Idempotency-Key',
      );
    }
    const fingerprint = requestFingerprint(request);
    const stored = (await manager.query(
      `SELECT fingerprint, response_status, response_body FROM idempotency_keys
        WHERE api_key_id = $1 AND key = $2 AND created_at >= now() - interval '${RETENTION}'`,
      [apiKeyId, key],
    )) as { fingerprint: string; response_status: number; response_body: unknown }[];
    if (stored.length > 0) {
      if (stored[0].fingerprint !== fingerprint) {
        throw new ApiError(
          422,
          'idempotency_key_reused',
          'This Idempotency-Key was used with a different method, path or body',
          'Idempotency-Key',
        );
      }
      response.status(stored[0].response_status);
      response.setHeader('Idempotent-Replayed', 'true');
      return stored[0].response_body;
    }
    const result = await operation();
    await manager.query(
      `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, response_status, response_body, created_at)
       VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (api_key_id, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
             response_body = EXCLUDED.response_body, created_at = EXCLUDED.created_at`,
      [apiKeyId, key, fingerprint, response.statusCode, JSON.stringify(result ?? null)],
    );
    return result;
  }
}

/** Deletes stored responses past their 24 hours, every 10 minutes, on every instance. */
@Injectable()
export class IdempotencySweeper implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;

  constructor(private readonly transactions: Transactions) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.deleteExpired().catch(() => undefined), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async deleteExpired(): Promise<number> {
    const [, deleted] = (await this.transactions.manager.query(
      `DELETE FROM idempotency_keys WHERE created_at < now() - interval '${RETENTION}'`,
    )) as [unknown, number];
    return deleted;
  }
}

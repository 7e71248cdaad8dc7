import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SessionLocks } from '../../database/session-locks';
import { Transactions } from '../../database/transactions';
import type { AuthenticatedRequest } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';
import { IdempotencyRepository } from './idempotency.repository';
import { PreparedWrites } from './prepared-writes';

/** Sorted keys, so that the same JSON sent with its members in another order is the same body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestFingerprint(request: Request): string {
  return createHash('sha256')
    .update(`${request.method} ${request.originalUrl}\n${canonicalJson(request.body ?? {})}`)
    .digest('hex');
}

function conflict(): ApiError {
  return new ApiError(
    409,
    'idempotency_conflict',
    'A request with this Idempotency-Key is still being processed; retry after it completes',
    'Idempotency-Key',
  );
}

/**
 * Runs a write sent with an `Idempotency-Key` (docs/api.md §5; the idempotency interceptor hands
 * it each one). The request runs in one transaction that first takes a transaction-scoped advisory
 * lock on (API key, Idempotency-Key): a duplicate arriving while the first runs cannot take it and
 * gets 409. The first success's response is inserted in that same transaction, so the write and
 * its stored response commit or vanish together, across instances and crashes; errors roll back
 * and leave nothing stored.
 *
 * A route marked PreparesOutsideTransaction runs outside any transaction instead (runPrepared),
 * holding a claim on the key (SessionLocks) that makes duplicates 409 meanwhile; its operation's
 * write, the lock, the check for a stored response and the new one are that same one transaction,
 * opened by PreparedWrites.commit.
 */
@Injectable()
export class IdempotentRequests {
  constructor(
    private readonly transactions: Transactions,
    private readonly stored: IdempotencyRepository,
    private readonly locks: SessionLocks,
    private readonly prepared: PreparedWrites,
  ) {}

  /** Runs the request's handler and stores its response in one transaction, or replays the stored one. */
  run(
    request: AuthenticatedRequest,
    response: Response,
    key: string,
    handle: () => Promise<unknown>,
  ): Promise<unknown> {
    return this.transactions.run(() => this.runOnce(request, response, key, handle));
  }

  /**
   * A route that prepares outside any transaction. A replay is answered before the handler runs,
   * as the operation would now refuse what it did the first time; its write commits through runOnce.
   */
  async runPrepared(
    request: AuthenticatedRequest,
    response: Response,
    key: string,
    handle: () => Promise<unknown>,
  ): Promise<unknown> {
    const claim = await this.locks.claim(`idempotency-claim:${request.auth.apiKeyId}:${key}`);
    if (!claim) throw conflict();
    try {
      const replayed = await this.replay(request, response, key);
      if (replayed) return replayed.body;
      const commit = <T>(work: () => Promise<T>) =>
        this.transactions.run(() => this.runOnce(request, response, key, work)) as Promise<T>;
      return await this.prepared.runWith(commit, handle);
    } finally {
      await claim.release();
    }
  }

  /** Runs in the request's transaction: every statement here commits or rolls back with the write. */
  private async runOnce(
    request: AuthenticatedRequest,
    response: Response,
    key: string,
    operation: () => Promise<unknown>,
  ): Promise<unknown> {
    const apiKeyId = request.auth.apiKeyId;
    if (!(await this.stored.tryLock(apiKeyId, key))) throw conflict();
    const replayed = await this.replay(request, response, key);
    if (replayed) return replayed.body;
    const result = await operation();
    await this.stored.store(apiKeyId, key, {
      fingerprint: requestFingerprint(request),
      status: response.statusCode,
      body: result,
    });
    return result;
  }

  /** The stored response, now answered (status and header), unless there is none; 422 for another request. */
  private async replay(
    request: AuthenticatedRequest,
    response: Response,
    key: string,
  ): Promise<{ body: unknown } | undefined> {
    const stored = await this.stored.findStored(request.auth.apiKeyId, key);
    if (!stored) return undefined;
    if (stored.fingerprint !== requestFingerprint(request)) {
      throw new ApiError(
        422,
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different method, path or body',
        'Idempotency-Key',
      );
    }
    response.status(stored.status).setHeader('Idempotent-Replayed', 'true');
    return { body: stored.body };
  }
}

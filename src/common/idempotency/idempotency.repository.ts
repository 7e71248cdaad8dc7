import { Injectable } from '@nestjs/common';
import { IdempotencyKeyEntity } from '../../database/entities/idempotency-key.entity';
import { Transactions } from '../../database/transactions';

/** How long a stored response replays (docs/api.md §5). */
const RETENTION = '24 hours';

/** The first success of a request sent with an Idempotency-Key, as replayed. */
export interface StoredResponse {
  /** `requestFingerprint` of the request that produced it. */
  fingerprint: string;
  status: number;
  body: unknown;
}

/**
 * The `idempotency_keys` table, keyed by (API key, Idempotency-Key). Every method but the sweep runs
 * in the request's transaction, so a stored response commits or vanishes with the write. Ages are
 * judged by the database clock, the one that stamps them, so every instance agrees.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly transactions: Transactions) {}

  /**
   * A transaction-scoped advisory lock on (API key, Idempotency-Key), without waiting: false when
   * another transaction holds it, i.e. the same request is still running.
   */
  async tryLock(apiKeyId: string, key: string): Promise<boolean> {
    const [{ locked }] = (await this.transactions.query(
      `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked`,
      [`idempotency:${apiKeyId}:${key}`],
    )) as [{ locked: boolean }];
    return locked;
  }

  /** The stored response, unless it is past its retention. */
  async findStored(apiKeyId: string, key: string): Promise<StoredResponse | undefined> {
    const row = await this.transactions
      .repository(IdempotencyKeyEntity)
      .createQueryBuilder('k')
      .select(['k.fingerprint', 'k.responseStatus', 'k.responseBody'])
      .where({ apiKeyId, key })
      .andWhere(`k.created_at >= now() - interval '${RETENTION}'`)
      .getOne();
    return row ? { fingerprint: row.fingerprint, status: row.responseStatus, body: row.responseBody } : undefined;
  }

  /** Stores a response, replacing an expired one the sweep has not deleted yet (an upsert whose stamp is the database clock's, hand-written). */
  async store(apiKeyId: string, key: string, response: StoredResponse): Promise<void> {
    await this.transactions.query(
      `INSERT INTO idempotency_keys (api_key_id, key, fingerprint, response_status, response_body, created_at, workspace_id)
       SELECT $1, $2, $3, $4, $5, now(), workspace_id FROM api_keys WHERE id = $1
       ON CONFLICT (api_key_id, key, workspace_id) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
             response_body = EXCLUDED.response_body, created_at = EXCLUDED.created_at`,
      [apiKeyId, key, response.fingerprint, response.status, JSON.stringify(response.body ?? null)],
    );
  }

  /** Deletes the responses past their retention; returns how many. */
  async deleteExpired(): Promise<number> {
    const [{ deleted }] = await this.transactions.query<{ deleted: number }>(
      `WITH expired AS (DELETE FROM idempotency_keys WHERE created_at < now() - interval '${RETENTION}' RETURNING 1)
       SELECT count(*)::int AS deleted FROM expired`,
    );
    return deleted;
  }
}

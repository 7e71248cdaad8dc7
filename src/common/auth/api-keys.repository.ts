import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { ApiKeyEntity } from '../../database/entities/api-key.entity';
import type { MemberRole } from '../../database/entities/member.entity';
import { Transactions } from '../../database/transactions';

/** An active key, with what a request needs of its member and workspace. */
export interface ApiKeyHolder {
  apiKeyId: string;
  workspaceId: string;
  memberId: string;
  /** As granted: `*` or public scopes. */
  scopes: string[];
  memberRole: MemberRole;
  memberEmail: string;
  metadataVersion: number;
  requirePreconditions: boolean;
}

interface HolderRow {
  id: string;
  workspace_id: string;
  member_id: string;
  scopes: string[];
  role: MemberRole;
  email: string;
  metadata_version: number;
  require_preconditions: boolean;
}

/**
 * Prepared (see Transactions.query), hence hand-written: TypeORM cannot name a statement, and
 * this one runs on every request. It reads the key's member and workspace too, because splitting
 * it would cost every request a round trip.
 */
const HOLDER_COLUMNS = `k.id, k.workspace_id, k.member_id, k.scopes, m.role, m.email, w.metadata_version, w.require_preconditions
    FROM api_keys k JOIN members m ON m.id = k.member_id JOIN workspaces w ON w.id = k.workspace_id`;
const HOLDER_LOOKUP = `SELECT ${HOLDER_COLUMNS} WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

function toHolder(row: HolderRow | undefined): ApiKeyHolder | undefined {
  return (
    row && {
      apiKeyId: row.id,
      workspaceId: row.workspace_id,
      memberId: row.member_id,
      scopes: row.scopes,
      memberRole: row.role,
      memberEmail: row.email,
      metadataVersion: row.metadata_version,
      requirePreconditions: row.require_preconditions,
    }
  );
}

/** The `api_keys` table, private to the auth module: others ask ApiKeysService. */
@Injectable()
export class ApiKeysRepository {
  constructor(private readonly transactions: Transactions) {}

  /** Runs on every `/v1` request, before any transaction exists. */
  async findActiveByHash(keyHash: string): Promise<ApiKeyHolder | undefined> {
    const [row] = await this.transactions.query<HolderRow>(HOLDER_LOOKUP, [keyHash], { prepare: 'auth-key-lookup' });
    return toHolder(row);
  }

  /** The active key `id` with its member and workspace, as a request by it would be authenticated (a webhook endpoint's reader). */
  async findActiveById(id: string): Promise<ApiKeyHolder | undefined> {
    const [row] = await this.transactions.query<HolderRow>(
      `SELECT ${HOLDER_COLUMNS} WHERE k.id = $1 AND k.revoked_at IS NULL`,
      [id],
      {
        prepare: 'auth-key-by-id',
      },
    );
    return toHolder(row);
  }

  /** The active keys among `ids`, each with its member and workspace. */
  async findActiveByIds(ids: string[]): Promise<ApiKeyHolder[]> {
    const rows = await this.transactions.query<HolderRow>(
      `SELECT ${HOLDER_COLUMNS} WHERE k.id = ANY($1::text[]) AND k.revoked_at IS NULL`,
      [ids],
      { prepare: 'auth-keys-by-ids' },
    );
    return rows.map((row) => toHolder(row)!);
  }

  private get keys() {
    return this.transactions.repository(ApiKeyEntity);
  }

  async insert(key: ApiKeyEntity): Promise<void> {
    await this.keys.insert(key);
  }

  async isActive(id: string, keyHash: string): Promise<boolean> {
    return this.keys.existsBy({ id, keyHash, revokedAt: IsNull() });
  }

  /** The revocation time; a key revoked before keeps its first one. Undefined: no such key. */
  async revoke(id: string): Promise<Date | undefined> {
    const result = await this.keys
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'coalesce(revoked_at, now())' })
      .where({ id })
      .returning('revoked_at')
      .execute();
    return (result.raw as { revoked_at: Date }[])[0]?.revoked_at;
  }
}

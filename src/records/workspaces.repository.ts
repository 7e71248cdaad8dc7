import { Injectable } from '@nestjs/common';
import type { WorkspaceEntity } from '../database/entities/workspace.entity';
import { Transactions } from '../database/transactions';

/**
 * The `workspaces` table, read and written in the request's transaction when there is one. The
 * operator API creates workspaces; the records core versions their definitions.
 */
@Injectable()
export class WorkspacesRepository {
  constructor(private readonly transactions: Transactions) {}

  async insert(workspace: Pick<WorkspaceEntity, 'id' | 'name' | 'createdAt'>): Promise<void> {
    await this.transactions.query(`INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3)`, [
      workspace.id,
      workspace.name,
      workspace.createdAt,
    ]);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.transactions.query(`SELECT 1 FROM workspaces WHERE id = $1`, [id])).length > 0;
  }

  /** Undefined when there is no such workspace. */
  async metadataVersion(id: string): Promise<number | undefined> {
    const [row] = await this.transactions.query<{ metadata_version: number }>(
      `SELECT metadata_version FROM workspaces WHERE id = $1`,
      [id],
    );
    return row?.metadata_version;
  }

  /** Marks the workspace's definitions changed; call in the transaction that changes them. */
  async incrementMetadataVersion(id: string): Promise<void> {
    await this.transactions.query(`UPDATE workspaces SET metadata_version = metadata_version + 1 WHERE id = $1`, [id]);
  }

  /**
   * Locks the workspace row until the transaction ends, so that definition changes of one
   * workspace take turns. False when there is no such workspace. Needs a transaction.
   */
  async lockForMetadataChange(id: string): Promise<boolean> {
    return (await this.transactions.query(`SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE`, [id], { locks: true })).length > 0;
  }
}

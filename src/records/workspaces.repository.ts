import { Injectable } from '@nestjs/common';
import { WorkspaceEntity } from '../database/entities/workspace.entity';
import { Transactions } from '../database/transactions';

/**
 * The `workspaces` table, read and written in the request's transaction when there is one. The
 * operator API creates workspaces; the records core versions their definitions.
 */
@Injectable()
export class WorkspacesRepository {
  constructor(private readonly transactions: Transactions) {}

  private get workspaces() {
    return this.transactions.repository(WorkspaceEntity);
  }

  async insert(workspace: Pick<WorkspaceEntity, 'id' | 'name' | 'createdAt' | 'requirePreconditions'>): Promise<void> {
    await this.workspaces.insert(workspace);
  }

  async exists(id: string): Promise<boolean> {
    return this.workspaces.existsBy({ id });
  }

  /** Undefined when there is no such workspace. */
  async metadataVersion(id: string): Promise<number | undefined> {
    const workspace = await this.workspaces.findOne({ select: { metadataVersion: true }, where: { id } });
    return workspace?.metadataVersion;
  }

  /** Sets what is given; the workspace as it is then, undefined when there is none. */
  async updateSettings(
    id: string,
    settings: Partial<Pick<WorkspaceEntity, 'requirePreconditions'>>,
  ): Promise<WorkspaceEntity | undefined> {
    const given = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
    if (Object.keys(given).length > 0) await this.workspaces.update({ id }, given);
    return (await this.workspaces.findOne({ where: { id } })) ?? undefined;
  }

  /** Marks the workspace's definitions changed; call in the transaction that changes them. */
  async incrementMetadataVersion(id: string): Promise<void> {
    await this.workspaces.increment({ id }, 'metadataVersion', 1);
  }

  /**
   * Locks the workspace row until the transaction ends, so that definition changes of one
   * workspace take turns. False when there is no such workspace. Needs a transaction.
   */
  async lockForMetadataChange(id: string): Promise<boolean> {
    const workspace = await this.workspaces.findOne({
      select: { id: true },
      where: { id },
      lock: { mode: 'pessimistic_write' },
    });
    return workspace !== null;
  }
}

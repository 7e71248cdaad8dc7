import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('workspaces')
export class WorkspaceEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  /** Incremented by every definition change: the key of the per-workspace definitions cache. */
  @Column('integer', { name: 'metadata_version', default: 0 })
  metadataVersion: number;

  /** Set by the operator: a write that could overwrite another's change (an update, an upsert, a delete) needs a precondition, else 428. */
  @Column('boolean', { name: 'require_preconditions', default: false })
  requirePreconditions: boolean;
}

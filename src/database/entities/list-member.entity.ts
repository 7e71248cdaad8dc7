import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A record in a list; a list's members page newest `added_at` first. */
@Entity('list_members')
export class ListMemberEntity {
  @PrimaryColumn('text', { name: 'list_id' })
  listId: string;

  @PrimaryColumn('text', { name: 'record_id' })
  recordId: string;

  /** The list's workspace, in the key so that a store sharded by workspace can enforce it. */
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('timestamptz', { name: 'added_at' })
  addedAt: Date;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A relationship's link from a record to another (or to a member or file: see LinkTargets). */
@Entity('record_links')
export class RecordLinkEntity {
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @PrimaryColumn('text', { name: 'source_id' })
  sourceId: string;

  /** `objectType.relationshipKey` of the source's side. */
  @PrimaryColumn('text')
  link: string;

  @PrimaryColumn('text', { name: 'target_id' })
  targetId: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

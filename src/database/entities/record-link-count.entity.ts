import { Column, Entity, PrimaryColumn } from 'typeorm';

/** How many sources link to a target over one link, in slots like RecordCountEntity. */
@Entity('record_link_counts')
export class RecordLinkCountEntity {
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @PrimaryColumn('text')
  link: string;

  @PrimaryColumn('text', { name: 'target_id' })
  targetId: string;

  @PrimaryColumn('smallint')
  slot: number;

  /** A bigint: the pg driver answers it as a string. */
  @Column('bigint')
  count: string;
}

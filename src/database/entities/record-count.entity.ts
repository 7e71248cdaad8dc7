import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A workspace's record count of a type, split over slots so that concurrent creates update
 * different rows; the count is the sum of the slots.
 */
@Entity('record_counts')
export class RecordCountEntity {
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @PrimaryColumn('text', { name: 'object_type' })
  objectType: string;

  @PrimaryColumn('smallint')
  slot: number;

  /** A bigint: the pg driver answers it as a string. */
  @Column('bigint')
  count: string;
}

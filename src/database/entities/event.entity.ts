import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A change event (docs/api.md §12): one change to one entity, appended in the change's
 * transaction. `position` orders a workspace's feed (see EventsRepository for how it is taken).
 */
@Entity('events')
export class EventEntity {
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  /** A bigint: the pg driver answers it as a string. */
  @PrimaryColumn('bigint')
  position: string;

  @Column('text')
  id: string;

  @Column('text')
  type: string;

  @Column('text', { name: 'entity_type' })
  entityType: string;

  @Column('text', { name: 'entity_id' })
  entityId: string;

  @Column('timestamptz', { name: 'occurred_at' })
  occurredAt: Date;

  /** `json`, not `jsonb`: returned as written, members in the order the API gives them. */
  @Column('json')
  data: unknown;

  @Column('json', { nullable: true })
  changes: unknown;

  @Column('text', { name: 'member_id', nullable: true })
  memberId: string | null;
}

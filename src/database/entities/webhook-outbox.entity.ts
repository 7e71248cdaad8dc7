import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A write's events waiting to be fanned out to the endpoints subscribed to them: left in the
 * write's statement, removed by the worker that inserts their first attempts (docs/api.md §13).
 */
@Entity('webhook_outbox')
export class WebhookOutboxEntity {
  /** A bigint: the pg driver answers it as a string. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'event_ids', array: true })
  eventIds: string[];

  /** Each event's type, in the order of `eventIds`. */
  @Column('text', { array: true })
  types: string[];

  /** When the write's statement began: the endpoints made since then get none of its events. */
  @Column('timestamptz', { name: 'written_at' })
  writtenAt: Date;

  /** When a worker may take it: the write's time plus the retry schedule's first delay. */
  @Column('timestamptz', { name: 'due_at' })
  dueAt: Date;
}

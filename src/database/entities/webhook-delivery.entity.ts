import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/**
 * One attempt to deliver an event to an endpoint: the delivery log. A PENDING attempt is made by
 * the job its insert enqueues (a trigger), or by the fan-out that inserted it claimed.
 */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  /** A bigint: the pg driver answers it as a string. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'endpoint_id' })
  endpointId: string;

  @Column('text', { name: 'event_id' })
  eventId: string;

  /** 1 for an event's first attempt to the endpoint, one more for each retry or redelivery. */
  @Column('integer')
  attempt: number;

  @Column('text')
  status: DeliveryStatus;

  @Column('timestamptz', { name: 'scheduled_at' })
  scheduledAt: Date;

  @Column('timestamptz', { name: 'attempted_at', nullable: true })
  attemptedAt: Date | null;

  @Column('integer', { name: 'response_status', nullable: true })
  responseStatus: number | null;

  @Column('integer', { name: 'duration_ms', nullable: true })
  durationMs: number | null;

  @Column('text', { nullable: true })
  error: string | null;

  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt: Date | null;

  /** The instance making the attempt, so that no two make it; null while no instance has claimed it. */
  @Column('text', { name: 'claimed_by', nullable: true })
  claimedBy: string | null;

  @Column('timestamptz', { name: 'claimed_at', nullable: true })
  claimedAt: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

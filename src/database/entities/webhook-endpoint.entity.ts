import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WebhookStatus = 'ENABLED' | 'DISABLED';

/** An HTTPS endpoint a workspace's events are delivered to (docs/api.md, webhooks). */
@Entity('webhook_endpoints')
export class WebhookEndpointEntity {
  @PrimaryColumn('text')
  id: string;

  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  /** Who made it, and with which key: the deliveries stop when either is gone. */
  @Column('text', { name: 'member_id' })
  memberId: string;

  @Column('text', { name: 'api_key_id' })
  apiKeyId: string;

  @Column('text')
  url: string;

  /** Event types delivered; `*` is every type. */
  @Column('text', { name: 'event_types', array: true })
  eventTypes: string[];

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text')
  status: WebhookStatus;

  /** Why the service disabled it; null when enabled, or disabled by a person. */
  @Column('text', { name: 'disabled_reason', nullable: true })
  disabledReason: string | null;

  /** Signs the deliveries; `previous_secret` also signs them until `previous_secret_until` (a rotation). */
  @Column('text')
  secret: string;

  @Column('text', { name: 'previous_secret', nullable: true })
  previousSecret: string | null;

  @Column('timestamptz', { name: 'previous_secret_until', nullable: true })
  previousSecretUntil: Date | null;

  /** When its current streak of failed attempts began; null after a success. */
  @Column('timestamptz', { name: 'failing_since', nullable: true })
  failingSince: Date | null;

  /** Stamped by the database clock, in milliseconds: the fan-out compares it with the writes' statement times. */
  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;

  /** Counts the changes of what the endpoint's answer shows, its secret included: its ETag. */
  @Column('integer', { default: 1 })
  version: number;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The first success of a request sent with an Idempotency-Key, replayed for 24 hours (docs/api.md §5). */
@Entity('idempotency_keys')
export class IdempotencyKeyEntity {
  @PrimaryColumn('text', { name: 'api_key_id' })
  apiKeyId: string;

  /** The Idempotency-Key header, 1 to 255 characters. */
  @PrimaryColumn('text')
  key: string;

  /** Its key's workspace, in the key so that a store sharded by workspace can enforce it. */
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  /** requestFingerprint of the request that produced the response. */
  @Column('text')
  fingerprint: string;

  @Column('integer', { name: 'response_status' })
  responseStatus: number;

  /** The text as first answered (json, not jsonb, which reorders members): a replay is the same bytes. */
  @Column('json', { name: 'response_body' })
  responseBody: unknown;

  /** Stamped by the database clock, which judges the retention. */
  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

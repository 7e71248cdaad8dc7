import { Column, Entity, PrimaryColumn } from 'typeorm';

export type StoredFileStatus = 'PENDING' | 'COMPLETED' | 'CANCELLED';

/**
 * An uploaded (or announced) file. EXPIRED is not stored: a PENDING file past `expiresAt` is
 * expired, judged by the database clock; `expiryRecorded` says its change event was written.
 */
@Entity('files')
export class FileEntity {
  @PrimaryColumn('text')
  id: string;

  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'member_id' })
  memberId: string;

  @Column('text')
  filename: string;

  @Column('text', { name: 'mime_type' })
  mimeType: string;

  /** A bigint: the pg driver answers it as a string. */
  @Column('bigint', { name: 'size_bytes' })
  sizeBytes: string;

  @Column('text')
  status: StoredFileStatus;

  @Column('text', { name: 'storage_key' })
  storageKey: string;

  /** The checked snapshot that became the content, once COMPLETED. */
  @Column('text', { name: 'object_key', nullable: true })
  objectKey: string | null;

  @Column('text', { nullable: true })
  md5: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  /** The upload deadline. */
  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt: Date | null;

  @Column('timestamptz', { name: 'cancelled_at', nullable: true })
  cancelledAt: Date | null;

  /** When the sweep deleted what an unfinished upload left in storage. */
  @Column('timestamptz', { name: 'swept_at', nullable: true })
  sweptAt: Date | null;

  @Column('timestamptz', { name: 'sweep_claimed_until', nullable: true })
  sweepClaimedUntil: Date | null;

  @Column('boolean', { name: 'expiry_recorded', default: false })
  expiryRecorded: boolean;
}

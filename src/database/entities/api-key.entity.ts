import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn('text')
  id: string;

  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'member_id' })
  memberId: string;

  @Column('text', { nullable: true })
  name: string | null;

  /** SHA-256 of the key, hex. The key itself is never stored. */
  @Column('text', { name: 'key_hash' })
  keyHash: string;

  @Column('text', { array: true })
  scopes: string[];

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}

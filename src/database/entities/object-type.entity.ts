import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A workspace's custom object type (the system types live in code: records/system-types.ts). */
@Entity('object_types')
export class ObjectTypeEntity {
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @PrimaryColumn('text')
  slug: string;

  @Column('text')
  label: string;

  /** Stamped by the database. */
  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A record of any type, system or custom. Its field values live in `fields`; triggers copy the
 * filterable ones to `record_values` (RecordValueEntity). Written by hand-made SQL: see
 * docs/architecture.md.
 */
@Entity('records')
export class RecordEntity {
  @PrimaryColumn('text')
  id: string;

  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'object_type' })
  objectType: string;

  @Column('jsonb', { default: {} })
  fields: Record<string, unknown>;

  @Column('text', { name: 'external_id', nullable: true })
  externalId: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', nullable: true })
  updatedAt: Date | null;

  /** Counts the record's changes: its ETag (docs/api.md, "Conditional requests"). */
  @Column('integer', { default: 1 })
  version: number;
}

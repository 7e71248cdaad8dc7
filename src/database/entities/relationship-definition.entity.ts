import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A custom relationship from a type to another (or to members), with the key of its inverse. */
@Entity('relationship_definitions')
export class RelationshipDefinitionEntity {
  @PrimaryColumn('text')
  id: string;

  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'object_type' })
  objectType: string;

  @Column('text')
  key: string;

  @Column('text')
  label: string;

  @Column('text')
  cardinality: 'HAS_ONE' | 'HAS_MANY';

  @Column('text', { name: 'target_type' })
  targetType: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { name: 'inverse_key' })
  inverseKey: string;

  @Column('text', { name: 'inverse_label' })
  inverseLabel: string;

  /** Stamped by the database. */
  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A custom field of a type, system or custom. Its value type and configuration are stored as the
 * records core gave them (it reads them back as its ValueType and TypeConfiguration).
 */
@Entity('field_definitions')
export class FieldDefinitionEntity {
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

  @Column('text', { name: 'value_type' })
  valueType: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('jsonb', { name: 'type_configuration' })
  typeConfiguration: object;

  @Column('boolean')
  required: boolean;

  /** Stamped by the database. */
  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

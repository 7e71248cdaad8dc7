import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { TypeConfiguration } from '../../records/object-type';
import type { ValueType } from '../../records/value-types';

/** A custom field of a type, system or custom. */
@Entity('field_definitions')
export class FieldDefinitionEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'object_type' })
  objectType: string;

  @Column('text')
  key: string;

  @Column('text')
  label: string;

  @Column('text', { name: 'value_type' })
  valueType: ValueType;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('jsonb', { name: 'type_configuration' })
  typeConfiguration: TypeConfiguration;

  @Column('boolean')
  required: boolean;

  /** Stamped by the database. */
  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One string or number of a record's field (an array's elements each): the value index the record
 * filters read for string prefixes and number ranges. Only the trigger on `records` writes it (the
 * RecordValues migrations); reads are the records core's compiled filters.
 */
@Entity('record_values')
export class RecordValueEntity {
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @PrimaryColumn('text', { name: 'record_id' })
  recordId: string;

  @PrimaryColumn('text', { name: 'field_key' })
  fieldKey: string;

  /** The value's position in its field: 1 for a single value, the element's for an array. */
  @PrimaryColumn('integer')
  ordinal: number;

  @Column('text', { name: 'object_type' })
  objectType: string;

  /** A string value's first 512 characters (the filters recheck the record's own value). */
  @Column('text', { name: 'text_value', nullable: true })
  textValue: string | null;

  /** A numeric: the pg driver answers it as a string. */
  @Column('numeric', { name: 'number_value', nullable: true })
  numberValue: string | null;

  /** The record's, so that a filtered page is ordered from the index alone. */
  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

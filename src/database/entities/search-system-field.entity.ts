import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The system fields as the search trigger indexes them: a snapshot of the system catalogue that a
 * migration writes (src/modules/search/search-system-fields.spec.ts fails when the two part). Of no
 * workspace.
 */
@Entity('search_system_fields')
export class SearchSystemFieldEntity {
  @PrimaryColumn('text', { name: 'object_type' })
  objectType: string;

  @PrimaryColumn('text')
  key: string;

  @Column('text', { name: 'value_type' })
  valueType: string;

  /** A select field's options (`id`, `label`), whose labels are indexed. */
  @Column('jsonb', { nullable: true })
  options: { id: string; label: string }[] | null;

  /** Whether a METADATA reader of a meeting sees the field (else it goes to `hidden_words`). */
  @Column('boolean', { name: 'shown_at_metadata', default: false })
  shownAtMetadata: boolean;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A record's search document (docs/api.md §14), kept by triggers on `records` in the write's own
 * transaction (see the Search migration for what each column holds).
 *
 * Its `written_by` column (xid8, the transaction that wrote the document) is not declared: TypeORM
 * knows no xid8 type and refuses the column. Only the trigger writes it and only the search
 * statements read it (test/e2e/entities.e2e-spec.ts lists it as the one column no entity declares).
 */
@Entity('search_documents')
export class SearchDocumentEntity {
  @PrimaryColumn('text', { name: 'record_id' })
  recordId: string;

  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'object_type' })
  objectType: string;

  @Column('tsvector')
  words: string;

  /** A meeting's fields that its METADATA view hides. */
  @Column('tsvector', { name: 'hidden_words' })
  hiddenWords: string;

  @Column('tsvector', { name: 'transcript_words', default: () => "''::tsvector" })
  transcriptWords: string;

  /** `$title`, `$name` and full names, for trigram similarity. */
  @Column('text')
  names: string;

  /** Emails, URL hosts and telephone digits, one a line, for substring matches. */
  @Column('text')
  fragments: string;
}

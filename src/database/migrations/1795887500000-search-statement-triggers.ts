import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search documents built once per statement, and meetings' transcripts indexed (docs/api.md §14).
 *
 * The row trigger of the Search migration cost a create about 0.2 ms of database CPU, 40 % of it
 * in `search_unaccent`, a SQL function that PostgreSQL cannot inline (it calls the only STABLE
 * `unaccent`), so each of its four calls per document set up a SQL function again. The documents now call `unaccent` itself, with the same dictionary, which folds exactly as
 * `search_unaccent` does for the queries. And they are built per statement from its transition
 * table: the same work for a one-record create, but a statement writing many records looks their
 * fields' value types up by joins instead of once a row (a bulk insert went 3× faster). An update
 * rebuilds only the documents of records whose fields changed. Both still run in the write's
 * statement, so a record is findable as soon as its write returned.
 *
 * `transcript_words`: the words of a meeting's transcript file, written by TranscriptIndex when the
 * transcript is linked (the file's bytes are in file storage, which the database cannot read) and
 * left alone by these triggers; matched, as the meeting's other hidden fields, only for callers
 * with FULL access to the meeting.
 */
export class SearchStatementTriggers1795887500000 implements MigrationInterface {
  name = 'SearchStatementTriggers1795887500000';

  async up(q: QueryRunner): Promise<void> {
    const [{ schema }] = (await q.query(
      `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'`,
    )) as { schema: string }[];
    const folded = (text: string) => `lower(${schema}.unaccent('${schema}.unaccent'::regdictionary, ${text}))`;
    const documents = (rows: string) => `
      SELECT r.id, r.workspace_id, r.object_type,
             to_tsvector('simple', ${folded(`coalesce(string_agg(v.value, ' ') FILTER (WHERE v.kind = 'word' AND NOT v.hidden), '')`)}),
             to_tsvector('simple', ${folded(`coalesce(string_agg(v.value, ' ') FILTER (WHERE v.hidden), '')`)}),
             ${folded(`coalesce(string_agg(v.value, ' ') FILTER (WHERE v.is_name AND NOT v.hidden), '')`)},
             ${folded(`coalesce(string_agg(v.value, E'\\n') FILTER (WHERE v.kind = 'fragment' AND NOT v.hidden AND v.value <> ''), '')`)},
             pg_current_xact_id()
        FROM ${rows} r LEFT JOIN LATERAL search_values(r.workspace_id, r.object_type, r.fields) v ON true
       GROUP BY r.id, r.workspace_id, r.object_type`;
    await q.query(`ALTER TABLE search_documents ADD COLUMN transcript_words tsvector NOT NULL DEFAULT ''`);
    await q.query(
      `CREATE INDEX search_documents_transcript_words_idx ON search_documents USING gin (transcript_words) WHERE object_type = 'meeting'`,
    );
    await q.query(`DROP TRIGGER search_documents_refresh ON records`);
    await q.query(`
      CREATE FUNCTION search_documents_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO search_documents (record_id, workspace_id, object_type, words, hidden_words, names, fragments, written_by)
        ${documents('inserted_records')};
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE FUNCTION search_documents_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO search_documents (record_id, workspace_id, object_type, words, hidden_words, names, fragments, written_by)
        ${documents(`(SELECT n.* FROM updated_records n JOIN records_before o ON o.id = n.id WHERE o.fields IS DISTINCT FROM n.fields)`)}
        ON CONFLICT (record_id) DO UPDATE
           SET words = EXCLUDED.words, hidden_words = EXCLUDED.hidden_words, names = EXCLUDED.names,
               fragments = EXCLUDED.fragments, written_by = EXCLUDED.written_by;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER search_documents_insert AFTER INSERT ON records
        REFERENCING NEW TABLE AS inserted_records FOR EACH STATEMENT EXECUTE FUNCTION search_documents_insert()`);
    await q.query(`
      CREATE TRIGGER search_documents_update AFTER UPDATE ON records
        REFERENCING OLD TABLE AS records_before NEW TABLE AS updated_records FOR EACH STATEMENT EXECUTE FUNCTION search_documents_update()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER search_documents_update ON records`);
    await q.query(`DROP TRIGGER search_documents_insert ON records`);
    await q.query(`DROP FUNCTION search_documents_update()`);
    await q.query(`DROP FUNCTION search_documents_insert()`);
    // The Search migration's row trigger, on the function it left in place.
    await q.query(`
      CREATE TRIGGER search_documents_refresh AFTER INSERT OR UPDATE OF fields ON records
        FOR EACH ROW EXECUTE FUNCTION search_documents_refresh()`);
    await q.query(`DROP INDEX search_documents_transcript_words_idx`);
    await q.query(`ALTER TABLE search_documents DROP COLUMN transcript_words`);
  }
}

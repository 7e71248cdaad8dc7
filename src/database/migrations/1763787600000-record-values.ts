import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An index of every record's scalar field values (one row per value; per element for multiple
 * values), kept by a trigger so that no write path can forget it. It serves the filters that a
 * jsonb index cannot: prefixes of strings and ranges of numbers, on any field of any type, custom
 * ones included, with a static schema. Strings are indexed by their first 512 characters; the
 * filters recheck the stored value, so long values are never matched wrongly.
 */
export class RecordValues1763787600000 implements MigrationInterface {
  name = 'RecordValues1763787600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE record_values (
        record_id text NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        workspace_id text NOT NULL,
        object_type text NOT NULL,
        field_key text NOT NULL,
        text_value text,
        number_value numeric
      )`);
    await q.query(`CREATE INDEX record_values_record_idx ON record_values (record_id)`);
    await q.query(
      `CREATE INDEX record_values_text_idx ON record_values
         (workspace_id, object_type, field_key, text_value text_pattern_ops) WHERE text_value IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX record_values_number_idx ON record_values
         (workspace_id, object_type, field_key, number_value) WHERE number_value IS NOT NULL`,
    );
    await q.query(`
      CREATE FUNCTION record_values_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          DELETE FROM record_values WHERE record_id = NEW.id;
        END IF;
        INSERT INTO record_values (record_id, workspace_id, object_type, field_key, text_value, number_value)
        SELECT NEW.id, NEW.workspace_id, NEW.object_type, e.key,
               CASE WHEN jsonb_typeof(x) = 'string' THEN left(x #>> '{}', 512) END,
               CASE WHEN jsonb_typeof(x) = 'number' THEN (x #>> '{}')::numeric END
          FROM jsonb_each(NEW.fields) e
         CROSS JOIN LATERAL jsonb_array_elements(
               CASE WHEN jsonb_typeof(e.value) = 'array' THEN e.value ELSE jsonb_build_array(e.value) END) x
         WHERE jsonb_typeof(x) IN ('string', 'number');
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER record_values_refresh AFTER INSERT OR UPDATE OF fields ON records
        FOR EACH ROW EXECUTE FUNCTION record_values_refresh()`);
    // Existing records: an update of fields to itself fires the trigger for each.
    await q.query(`UPDATE records SET fields = fields`);
    // The expression indexes for $title and $name prefixes are superseded by record_values.
    await q.query(`DROP INDEX records_title_prefix_idx`);
    await q.query(`DROP INDEX records_name_prefix_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const key of ['$title', '$name']) {
      await q.query(
        `CREATE INDEX records_${key.slice(1)}_prefix_idx ON records
           (workspace_id, object_type, (fields ->> '${key}') text_pattern_ops)`,
      );
    }
    await q.query(`DROP TRIGGER record_values_refresh ON records`);
    await q.query(`DROP FUNCTION record_values_refresh()`);
    await q.query(`DROP TABLE record_values`);
  }
}

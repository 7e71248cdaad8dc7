import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `record_values` learns each record's `created_at`, and its indexes carry it with the record id,
 * so that a list filtered by one indexed condition is counted and paged from the index alone
 * (newest first), reading only the page's records.
 */
export class RecordValuesOrder1763791200000 implements MigrationInterface {
  name = 'RecordValuesOrder1763791200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE record_values ADD COLUMN created_at timestamptz`);
    await q.query(`UPDATE record_values v SET created_at = r.created_at FROM records r WHERE r.id = v.record_id`);
    await q.query(`ALTER TABLE record_values ALTER COLUMN created_at SET NOT NULL`);
    await q.query(`DROP INDEX record_values_text_idx`);
    await q.query(`DROP INDEX record_values_number_idx`);
    await q.query(
      `CREATE INDEX record_values_text_idx ON record_values
         (workspace_id, object_type, field_key, text_value text_pattern_ops) INCLUDE (created_at, record_id)
         WHERE text_value IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX record_values_number_idx ON record_values
         (workspace_id, object_type, field_key, number_value) INCLUDE (created_at, record_id)
         WHERE number_value IS NOT NULL`,
    );
    await q.query(`
      CREATE OR REPLACE FUNCTION record_values_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          DELETE FROM record_values WHERE record_id = NEW.id;
        END IF;
        INSERT INTO record_values (record_id, workspace_id, object_type, field_key, text_value, number_value, created_at)
        SELECT NEW.id, NEW.workspace_id, NEW.object_type, e.key,
               CASE WHEN jsonb_typeof(x) = 'string' THEN left(x #>> '{}', 512) END,
               CASE WHEN jsonb_typeof(x) = 'number' THEN (x #>> '{}')::numeric END,
               NEW.created_at
          FROM jsonb_each(NEW.fields) e
         CROSS JOIN LATERAL jsonb_array_elements(
               CASE WHEN jsonb_typeof(e.value) = 'array' THEN e.value ELSE jsonb_build_array(e.value) END) x
         WHERE jsonb_typeof(x) IN ('string', 'number');
        RETURN NULL;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX record_values_text_idx`);
    await q.query(`DROP INDEX record_values_number_idx`);
    await q.query(
      `CREATE INDEX record_values_text_idx ON record_values
         (workspace_id, object_type, field_key, text_value text_pattern_ops) WHERE text_value IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX record_values_number_idx ON record_values
         (workspace_id, object_type, field_key, number_value) WHERE number_value IS NOT NULL`,
    );
    await q.query(`
      CREATE OR REPLACE FUNCTION record_values_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
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
    await q.query(`ALTER TABLE record_values DROP COLUMN created_at`);
  }
}

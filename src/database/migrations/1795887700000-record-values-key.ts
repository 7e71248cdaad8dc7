import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The value rows of the record `r` names (the trigger's NEW, or a row of `records`): one per string
 * or number of each field, an array's elements each, with their position in the field (`ordinal`).
 */
function valueRows(r: string, ordinal: boolean): string {
  return `
    SELECT ${r}.id, ${r}.workspace_id, ${r}.object_type, e.key,
           CASE WHEN jsonb_typeof(x) = 'string' THEN left(x #>> '{}', 512) END,
           CASE WHEN jsonb_typeof(x) = 'number' THEN (x #>> '{}')::numeric END,
           ${r}.created_at${ordinal ? ', x.ordinal' : ''}
      FROM jsonb_each(${r}.fields) e
     CROSS JOIN LATERAL jsonb_array_elements(
           CASE WHEN jsonb_typeof(e.value) = 'array' THEN e.value ELSE jsonb_build_array(e.value) END)${ordinal ? ' WITH ORDINALITY x(x, ordinal)' : ' x'}
     WHERE jsonb_typeof(x) IN ('string', 'number')`;
}

/**
 * `record_values` gets a primary key, so that it is a table like the others (an entity, a key to
 * shard by): a row is one value of one field of a record, identified by the workspace, the record,
 * the field and `ordinal`, the value's position in the field (1 for a single value; a multi-valued
 * field may hold one value twice, so the value itself cannot be the key). The key's index serves
 * what the index on `record_id` served (the trigger's delete, the cascade from `records`, the
 * filters' EXISTS probe, which it also narrows by field), so that index goes: a write maintains as
 * many indexes as before. The key's index is the larger (a unique index keeps every entry, where
 * the other deduplicated a record's: about 20 MB against 4 MB for 160,000 values), the price of a
 * key by which logical replication (a shard move) can apply the trigger's deletes.
 *
 * The rows are rebuilt from `records` (they are derived, and the positions are only there), in the
 * migration's transaction; the trigger's delete names the workspace, the key's first column.
 */
export class RecordValuesKey1795887700000 implements MigrationInterface {
  name = 'RecordValuesKey1795887700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX record_values_record_idx`);
    await q.query(`TRUNCATE record_values`);
    await q.query(`ALTER TABLE record_values ADD COLUMN ordinal integer NOT NULL`);
    await q.query(
      `INSERT INTO record_values (record_id, workspace_id, object_type, field_key, text_value, number_value, created_at, ordinal)
       SELECT v.* FROM records r CROSS JOIN LATERAL (${valueRows('r', true)}) v`,
    );
    await q.query(
      `ALTER TABLE record_values ADD CONSTRAINT record_values_pkey PRIMARY KEY (workspace_id, record_id, field_key, ordinal)`,
    );
    await q.query(refreshFunction(true));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(refreshFunction(false));
    await q.query(`ALTER TABLE record_values DROP CONSTRAINT record_values_pkey`);
    await q.query(`ALTER TABLE record_values DROP COLUMN ordinal`);
    await q.query(`CREATE INDEX record_values_record_idx ON record_values (record_id)`);
  }
}

/** The trigger function of the RecordValuesOrder migration (`ordinal` false), or with the key's. */
function refreshFunction(ordinal: boolean): string {
  return `
    CREATE OR REPLACE FUNCTION record_values_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        DELETE FROM record_values WHERE ${ordinal ? 'workspace_id = NEW.workspace_id AND ' : ''}record_id = NEW.id;
      END IF;
      INSERT INTO record_values (record_id, workspace_id, object_type, field_key, text_value, number_value, created_at${ordinal ? ', ordinal' : ''})
      ${valueRows('NEW', ordinal)};
      RETURN NULL;
    END
    $$`;
}

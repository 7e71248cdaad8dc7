import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The records core (issue: records core): one `records` table for every record type, one
 * two-sided `record_links` table, and the per-workspace custom field and relationship
 * definitions. `metadata_version` lets every instance see a definition change at once.
 */
export class RecordsCore1763773200000 implements MigrationInterface {
  name = 'RecordsCore1763773200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspaces ADD COLUMN metadata_version integer NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE field_definitions (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        object_type text NOT NULL,
        key text NOT NULL CHECK (key ~ '^[a-z][a-zA-Z0-9_]{0,62}$'),
        label text NOT NULL,
        value_type text NOT NULL,
        description text,
        type_configuration jsonb NOT NULL DEFAULT '{}',
        required boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace_id, object_type, key)
      )`);
    await q.query(`
      CREATE TABLE relationship_definitions (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        object_type text NOT NULL,
        key text NOT NULL CHECK (key ~ '^[a-z][a-zA-Z0-9_]{0,62}$'),
        label text NOT NULL,
        cardinality text NOT NULL CHECK (cardinality IN ('HAS_ONE', 'HAS_MANY')),
        target_type text NOT NULL,
        description text,
        inverse_key text NOT NULL,
        inverse_label text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (workspace_id, object_type, key),
        UNIQUE (workspace_id, target_type, inverse_key)
      )`);
    await q.query(`
      CREATE TABLE records (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        object_type text NOT NULL,
        fields jsonb NOT NULL DEFAULT '{}',
        external_id text CHECK (char_length(external_id) BETWEEN 1 AND 255),
        created_at timestamptz NOT NULL,
        updated_at timestamptz
      )`);
    await q.query(`CREATE INDEX records_page_idx ON records (workspace_id, object_type, created_at DESC, id DESC)`);
    await q.query(
      `CREATE UNIQUE INDEX records_external_id_key ON records (workspace_id, object_type, external_id)
        WHERE external_id IS NOT NULL`,
    );
    // Equality filters become containment (fields @> '{"k": v}'), which this index serves.
    await q.query(`CREATE INDEX records_fields_idx ON records USING gin (fields jsonb_path_ops)`);
    await q.query(`
      CREATE TABLE record_links (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        source_id text NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        link text NOT NULL,
        target_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (source_id, link, target_id)
      )`);
    await q.query(`CREATE INDEX record_links_target_idx ON record_links (target_id, link, source_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE record_links`);
    await q.query(`DROP TABLE records`);
    await q.query(`DROP TABLE relationship_definitions`);
    await q.query(`DROP TABLE field_definitions`);
    await q.query(`ALTER TABLE workspaces DROP COLUMN metadata_version`);
  }
}

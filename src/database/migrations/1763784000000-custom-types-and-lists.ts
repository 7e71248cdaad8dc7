import { MigrationInterface, QueryRunner } from 'typeorm';

/** Custom object types per workspace, and lists with their members (issue: custom objects and lists). */
export class CustomTypesAndLists1763784000000 implements MigrationInterface {
  name = 'CustomTypesAndLists1763784000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE object_types (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        slug text NOT NULL CHECK (slug ~ '^[a-z][a-z0-9_]{1,62}$'),
        label text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, slug)
      )`);
    await q.query(`
      CREATE TABLE lists (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text NOT NULL,
        object_type text NOT NULL CHECK (object_type IN ('account', 'contact', 'opportunity')),
        created_at timestamptz NOT NULL,
        updated_at timestamptz
      )`);
    await q.query(`CREATE INDEX lists_page_idx ON lists (workspace_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE list_members (
        list_id text NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
        record_id text NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        added_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (list_id, record_id)
      )`);
    await q.query(`CREATE INDEX list_members_page_idx ON list_members (list_id, added_at DESC, record_id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE list_members`);
    await q.query(`DROP TABLE lists`);
    await q.query(`DROP TABLE object_types`);
  }
}

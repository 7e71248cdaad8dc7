import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Paging speed at scale: an unfiltered list's `totalCount` read from a counter kept in the write's
 * transaction instead of counting every row (records are never deleted), and prefix indexes for
 * `startsWith` on the system title and name fields.
 */
export class RecordCounts1763776800000 implements MigrationInterface {
  name = 'RecordCounts1763776800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE record_counts (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        object_type text NOT NULL,
        count bigint NOT NULL CHECK (count >= 0),
        PRIMARY KEY (workspace_id, object_type)
      )`);
    await q.query(`
      INSERT INTO record_counts (workspace_id, object_type, count)
      SELECT workspace_id, object_type, count(*) FROM records GROUP BY workspace_id, object_type`);
    for (const key of ['$title', '$name']) {
      const name = key.slice(1);
      await q.query(
        `CREATE INDEX records_${name}_prefix_idx ON records
           (workspace_id, object_type, (fields ->> '${key}') text_pattern_ops)`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX records_name_prefix_idx`);
    await q.query(`DROP INDEX records_title_prefix_idx`);
    await q.query(`DROP TABLE record_counts`);
  }
}

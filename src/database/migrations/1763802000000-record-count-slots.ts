import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A type's counter in slots, a count being the sum of its slots: a create bumps a slot that no
 * other uncommitted create holds (RecordsRepository.insert). One row per workspace and type made
 * every create in a workspace wait for the commit of the one before.
 */
export class RecordCountSlots1763802000000 implements MigrationInterface {
  name = 'RecordCountSlots1763802000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE record_counts ADD COLUMN slot smallint NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE record_counts ALTER COLUMN slot DROP DEFAULT`);
    await q.query(`ALTER TABLE record_counts DROP CONSTRAINT record_counts_pkey`);
    await q.query(`ALTER TABLE record_counts ADD PRIMARY KEY (workspace_id, object_type, slot)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TEMPORARY TABLE record_count_totals ON COMMIT DROP AS
      SELECT workspace_id, object_type, sum(count) AS count FROM record_counts GROUP BY workspace_id, object_type`);
    await q.query(`DELETE FROM record_counts`);
    await q.query(`ALTER TABLE record_counts DROP CONSTRAINT record_counts_pkey`);
    await q.query(`ALTER TABLE record_counts DROP COLUMN slot`);
    await q.query(`ALTER TABLE record_counts ADD PRIMARY KEY (workspace_id, object_type)`);
    await q.query(`INSERT INTO record_counts (workspace_id, object_type, count) SELECT * FROM record_count_totals`);
  }
}

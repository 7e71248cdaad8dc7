import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A counter of each record's changes, bumped by the statements that write it: the record's ETag,
 * which `If-Match` compares under the write's row lock (docs/api.md, "Conditional requests"). A
 * constant default adds the column without rewriting the table; records made before read 1.
 */
export class RecordVersions1795888200000 implements MigrationInterface {
  name = 'RecordVersions1795888200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE records ADD COLUMN version integer NOT NULL DEFAULT 1`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE records DROP COLUMN version`);
  }
}

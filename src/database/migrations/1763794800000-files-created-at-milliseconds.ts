import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Files list newest first by `created_at`, which the API shows in milliseconds: stored with
 * microseconds, two files with the same shown `createdAt` came in microsecond order, not id order.
 * Existing stamps are cut to the millisecond the API already showed for them, and a constraint keeps
 * every later stamp at that precision.
 */
export class FilesCreatedAtMilliseconds1763794800000 implements MigrationInterface {
  name = 'FilesCreatedAtMilliseconds1763794800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE files SET created_at = date_trunc('milliseconds', created_at)
                    WHERE created_at <> date_trunc('milliseconds', created_at)`);
    await q.query(`ALTER TABLE files ADD CONSTRAINT files_created_at_milliseconds
                     CHECK (created_at = date_trunc('milliseconds', created_at))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE files DROP CONSTRAINT files_created_at_milliseconds`);
  }
}

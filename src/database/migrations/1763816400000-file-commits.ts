import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Completing a file no longer holds its row (and a pooled connection) through the storage calls:
 * each complete copies the upload to a key of its own, checks it outside any transaction, and one
 * UPDATE then makes that copy the file's content (`object_key`, relative to the driver's root), if
 * the file is still PENDING. Files completed before kept their bytes at `storage_key`.
 *
 * The sweep likewise claims files for a while (`sweep_claimed_until`) instead of holding their rows
 * locked while it deletes their bytes; a sweeper that dies mid-batch leaves a claim that runs out.
 */
export class FileCommits1763816400000 implements MigrationInterface {
  name = 'FileCommits1763816400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE files ADD COLUMN object_key text, ADD COLUMN sweep_claimed_until timestamptz`);
    await q.query(`UPDATE files SET object_key = storage_key WHERE status = 'COMPLETED'`);
    await q.query(
      `ALTER TABLE files ADD CONSTRAINT files_object_key_completed CHECK ((status = 'COMPLETED') = (object_key IS NOT NULL))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE files DROP COLUMN object_key, DROP COLUMN sweep_claimed_until`);
  }
}

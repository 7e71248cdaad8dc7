import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Files: two-step upload sessions (docs/api.md §10). EXPIRED is not stored: a PENDING row whose
 * `expires_at` has passed reads as EXPIRED, so reads are exact at any moment without a job.
 * `expires_at` keeps the upload deadline after completion or cancellation (the API shows null):
 * it is when the upload URL stops working, after which the sweep may delete what it left behind
 * (`swept_at`).
 */
export class Files1763780400000 implements MigrationInterface {
  name = 'Files1763780400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE files (
        id text PRIMARY KEY CHECK (id ~ '^fil_[0-9A-HJKMNP-TV-Z]{26}$'),
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        member_id text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
        filename text NOT NULL CHECK (char_length(filename) BETWEEN 1 AND 255),
        mime_type text NOT NULL CHECK (char_length(mime_type) BETWEEN 3 AND 255),
        size_bytes bigint NOT NULL CHECK (size_bytes BETWEEN 1 AND 536870912),
        status text NOT NULL CHECK (status IN ('PENDING', 'COMPLETED', 'CANCELLED')),
        storage_key text NOT NULL,
        md5 text CHECK (md5 ~ '^[0-9a-f]{32}$'),
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        completed_at timestamptz,
        cancelled_at timestamptz,
        swept_at timestamptz,
        CHECK ((status = 'COMPLETED') = (completed_at IS NOT NULL)),
        CHECK ((status = 'CANCELLED') = (cancelled_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX files_workspace_page_idx ON files (workspace_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX files_sweep_idx ON files (expires_at) WHERE swept_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE files`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** Workspaces, members, API keys and stored idempotent responses (issue: service foundation). */
export class Foundation1763769600000 implements MigrationInterface {
  name = 'Foundation1763769600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE members (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        email text NOT NULL,
        first_name text,
        last_name text,
        role text NOT NULL CHECK (role IN ('admin', 'member')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX members_workspace_email_key ON members (workspace_id, lower(email))`);
    await q.query(`CREATE INDEX members_workspace_page_idx ON members (workspace_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        member_id text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
        name text,
        key_hash text NOT NULL CHECK (key_hash ~ '^[0-9a-f]{64}$'),
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash)`);
    await q.query(`
      CREATE TABLE idempotency_keys (
        api_key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
        fingerprint text NOT NULL,
        response_status integer NOT NULL,
        response_body jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (api_key_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE members`);
    await q.query(`DROP TABLE workspaces`);
  }
}

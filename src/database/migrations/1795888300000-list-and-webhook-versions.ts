import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conditional requests beyond records: a version counter of each list and webhook endpoint, their
 * ETag as a record's is, and the workspace setting that makes a write without a precondition 428
 * (docs/api.md, "Conditional requests"). Constant defaults add the columns without a rewrite.
 */
export class ListAndWebhookVersions1795888300000 implements MigrationInterface {
  name = 'ListAndWebhookVersions1795888300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE lists ADD COLUMN version integer NOT NULL DEFAULT 1`);
    await q.query(`ALTER TABLE webhook_endpoints ADD COLUMN version integer NOT NULL DEFAULT 1`);
    await q.query(`ALTER TABLE workspaces ADD COLUMN require_preconditions boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspaces DROP COLUMN require_preconditions`);
    await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN version`);
    await q.query(`ALTER TABLE lists DROP COLUMN version`);
  }
}

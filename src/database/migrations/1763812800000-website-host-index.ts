import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The host key of every `$website` entry (record_values holds one row per entry), indexed: a
 * meeting that auto-creates records looks accounts up by the host of each new attendee's email
 * domain, under the lock that keeps two meetings from making one account twice. That lookup read
 * every website of every account of the workspace (2 s at 5,700 accounts of 100 websites, found by
 * a black-box cost hunt), and meetings queued behind it until the connection pool ran dry. Partial:
 * only `$website` entries pay for the expression. The expression is url-hosts.ts's hostKeySql as it
 * was written here; RecordsRepository.oldestByUrlHost must use the same one (meetings e2e checks the plan).
 */
export class WebsiteHostIndex1763812800000 implements MigrationInterface {
  name = 'WebsiteHostIndex1763812800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX record_values_website_host_idx ON record_values
         (workspace_id, object_type,
          (regexp_replace(rtrim(lower(substring(text_value from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/?#:]+)')), '.'), '^www[.]', '')))
         WHERE field_key = '$website'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX record_values_website_host_idx`);
  }
}

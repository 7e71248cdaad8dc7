import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The exact `totalCount` of a list filtered by one relationship (`/v1/notes?$createdBy=…`) without
 * counting its matches: `record_link_counts` holds, per workspace, link and target, how many links
 * there are, i.e. how many records of the link's source type are linked to that target. Counting
 * 990,000 matches of `$createdBy` in a workspace of 1,000,000 notes took a second.
 *
 * Triggers keep the counts, so that every write of `record_links` (creates, relationship
 * updates, a workspace's cascade) is counted in its own transaction. Like `record_counts`, a count
 * is the sum of slots, and a write bumps a slot that no other uncommitted write holds, or adds one:
 * the creates of one member, all linked to that member by `$createdBy`, never wait for each other.
 * When the workspace is being deleted no slot is added (its counts are deleted with it).
 */
export class RecordLinkCounts1763805600000 implements MigrationInterface {
  name = 'RecordLinkCounts1763805600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE record_link_counts (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        link text NOT NULL,
        target_id text NOT NULL,
        slot smallint NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (workspace_id, link, target_id, slot)
      )`);
    await q.query(`
      CREATE FUNCTION count_record_link(link_workspace text, link_name text, link_target text, delta int) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        free smallint;
      BEGIN
        SELECT slot INTO free FROM record_link_counts
         WHERE workspace_id = link_workspace AND link = link_name AND target_id = link_target
         ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
          UPDATE record_link_counts SET count = count + delta
           WHERE workspace_id = link_workspace AND link = link_name AND target_id = link_target AND slot = free;
        ELSE
          INSERT INTO record_link_counts (workspace_id, link, target_id, slot, count)
          SELECT link_workspace, link_name, link_target, floor(random() * 32768)::int, delta
           WHERE EXISTS (SELECT 1 FROM workspaces WHERE id = link_workspace)
          ON CONFLICT (workspace_id, link, target_id, slot) DO UPDATE SET count = record_link_counts.count + delta;
        END IF;
      END $$`);
    // Per statement, one change per counter: a statement that adds n links to one target (a bulk
    // seed, an account given many contacts) bumps its counter once, not n times in one transaction.
    await q.query(`
      CREATE FUNCTION record_links_counted() RETURNS trigger
      LANGUAGE plpgsql AS $$
      DECLARE
        change record;
      BEGIN
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
          FOR change IN SELECT workspace_id, link, target_id, count(*)::int AS n FROM removed GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LOOP
            PERFORM count_record_link(change.workspace_id, change.link, change.target_id, -change.n);
          END LOOP;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          FOR change IN SELECT workspace_id, link, target_id, count(*)::int AS n FROM added GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LOOP
            PERFORM count_record_link(change.workspace_id, change.link, change.target_id, change.n);
          END LOOP;
        END IF;
        RETURN NULL;
      END $$`);
    // Made before the counts are filled: from here on the table is locked against writes until commit.
    await q.query(`
      CREATE TRIGGER record_links_counted_insert AFTER INSERT ON record_links
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION record_links_counted()`);
    await q.query(`
      CREATE TRIGGER record_links_counted_delete AFTER DELETE ON record_links
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION record_links_counted()`);
    await q.query(`
      CREATE TRIGGER record_links_counted_update AFTER UPDATE ON record_links
      REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION record_links_counted()`);
    await q.query(`
      INSERT INTO record_link_counts (workspace_id, link, target_id, slot, count)
      SELECT workspace_id, link, target_id, 0, count(*) FROM record_links GROUP BY workspace_id, link, target_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const operation of ['insert', 'delete', 'update'])
      await q.query(`DROP TRIGGER record_links_counted_${operation} ON record_links`);
    await q.query(`DROP FUNCTION record_links_counted()`);
    await q.query(`DROP FUNCTION count_record_link(text, text, text, int)`);
    await q.query(`DROP TABLE record_link_counts`);
  }
}

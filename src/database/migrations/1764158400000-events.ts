import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Change events (docs/api.md §12): one row per change to one entity, written in the transaction of
 * the change. `position` orders the feed: it is taken from `event_positions` while the writer holds
 * its workspace's append lock shared, and a reader holds that lock exclusively while it reads, so a
 * reader never passes a position that a still-open transaction could yet commit (see
 * EventsRepository). The sequence must hand out increasing values across sessions, hence no cache.
 *
 * `data` and `changes` are `json`, not `jsonb`: they are returned as written, members in the order
 * the API gives them.
 *
 * A PENDING file expires by its deadline passing, with no write; `files.expiry_recorded` marks
 * those whose `file.expired` event is written (the file sweep writes them). Files that expired
 * before events existed have none.
 */
export class Events1764158400000 implements MigrationInterface {
  name = 'Events1764158400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE event_positions AS bigint CACHE 1`);
    // Keyed by workspace then position, the feed's order; ids are looked up by webhooks. Pruning
    // by time reads a BRIN index, which an append barely maintains (occurred_at rises with position).
    await q.query(`
      CREATE TABLE events (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        position bigint NOT NULL,
        id text NOT NULL UNIQUE,
        type text NOT NULL,
        entity_type text NOT NULL,
        entity_id text NOT NULL,
        occurred_at timestamptz NOT NULL,
        data json NOT NULL,
        changes json,
        member_id text,
        PRIMARY KEY (workspace_id, position)
      )`);
    await q.query(`CREATE INDEX events_retention_idx ON events USING brin (occurred_at)`);
    await q.query(`ALTER TABLE files ADD COLUMN expiry_recorded boolean NOT NULL DEFAULT false`);
    await q.query(
      `UPDATE files SET expiry_recorded = true WHERE status = 'PENDING' AND expires_at <= statement_timestamp()`,
    );
    await q.query(
      `CREATE INDEX files_unrecorded_expiry_idx ON files (expires_at) WHERE status = 'PENDING' AND NOT expiry_recorded`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE files DROP COLUMN expiry_recorded`);
    await q.query(`DROP TABLE events`);
    await q.query(`DROP SEQUENCE event_positions`);
  }
}

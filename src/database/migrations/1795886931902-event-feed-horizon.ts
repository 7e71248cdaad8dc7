import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The feed reads without a lock (docs/api.md §12): each event keeps the id of the transaction that
 * appended it (`xid`), and the feed is ordered by (`xid`, `position`) and read only below the
 * oldest transaction still in progress, where nothing can be added any more (see EventsRepository).
 *
 * The events already kept get `xid` 0: they were all committed, so they come first, in their
 * position order, and a cursor given before this migration (a position) goes on from (0, position).
 * The constant default adds the column without rewriting the table; new rows take their own
 * transaction's id.
 */
export class EventFeedHorizon1795886931902 implements MigrationInterface {
  name = 'EventFeedHorizon1795886931902';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT '0'`);
    await q.query(`ALTER TABLE events ALTER COLUMN xid SET DEFAULT pg_current_xact_id()`);
    await q.query(`CREATE INDEX events_feed_idx ON events (workspace_id, xid, position)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX events_feed_idx`);
    await q.query(`ALTER TABLE events DROP COLUMN xid`);
  }
}

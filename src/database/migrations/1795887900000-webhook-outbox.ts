import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The webhooks' outbox (docs/api.md §13): a write whose events an enabled endpoint subscribes to
 * leaves one row here, in its transaction, in place of a fan-out job (a job costs the write
 * graphile-worker's function, its row, and its NOTIFY). The workers take the rows due in batches
 * (FOR UPDATE SKIP LOCKED: several workers never take one row) and insert the first attempts of
 * their events in the statement that removes them.
 *
 * A row inserted notifies `webhook_outbox`, which the workers LISTEN to; PostgreSQL folds the
 * notifications of one transaction into one. The fan-out jobs still waiting become rows due when
 * they were; a job a worker of the previous version is running meanwhile inserts attempts the row
 * then finds there (a first attempt is unique per endpoint and event).
 */
export class WebhookOutbox1795887900000 implements MigrationInterface {
  name = 'WebhookOutbox1795887900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_outbox (
        id bigint GENERATED ALWAYS AS IDENTITY,
        workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        event_ids text[] NOT NULL,
        types text[] NOT NULL,
        written_at timestamptz NOT NULL,
        due_at timestamptz NOT NULL,
        PRIMARY KEY (id, workspace_id)
      )`);
    await q.query(`CREATE INDEX webhook_outbox_due_idx ON webhook_outbox (due_at)`);
    await q.query(`CREATE INDEX webhook_outbox_workspace_idx ON webhook_outbox (workspace_id)`);
    await q.query(`
      CREATE FUNCTION webhook_outbox_signal() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('webhook_outbox', '');
        RETURN NULL;
      END $$`);
    await q.query(
      `CREATE TRIGGER webhook_outbox_signal AFTER INSERT ON webhook_outbox FOR EACH ROW EXECUTE FUNCTION webhook_outbox_signal()`,
    );
    await q.query(`
      INSERT INTO webhook_outbox (workspace_id, event_ids, types, written_at, due_at)
      SELECT j.payload->>'workspaceId',
             ARRAY(SELECT json_array_elements_text(j.payload->'eventIds')),
             ARRAY(SELECT json_array_elements_text(j.payload->'types')),
             (j.payload->>'writtenAt')::timestamptz, j.run_at
        FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
       WHERE t.identifier = 'webhook_fanout' AND EXISTS (SELECT 1 FROM workspaces w WHERE w.id = j.payload->>'workspaceId')
       ORDER BY j.id`);
    await q.query(`
      DELETE FROM graphile_worker._private_jobs j USING graphile_worker._private_tasks t
       WHERE t.id = j.task_id AND t.identifier = 'webhook_fanout'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      SELECT graphile_worker.add_job('webhook_fanout',
               json_build_object('workspaceId', workspace_id, 'eventIds', event_ids, 'types', types, 'writtenAt', written_at),
               run_at := due_at)
        FROM webhook_outbox ORDER BY id`);
    await q.query(`DROP TABLE webhook_outbox`);
    await q.query(`DROP FUNCTION webhook_outbox_signal()`);
  }
}

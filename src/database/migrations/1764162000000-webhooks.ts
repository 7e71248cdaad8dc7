import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints and their delivery log (docs/api.md §13).
 *
 * One `webhook_deliveries` row is one attempt to deliver one event to one endpoint: PENDING until
 * it is made (due at `scheduled_at`), then SUCCEEDED or FAILED. A failed attempt that is retried
 * is followed by a new PENDING row, whose time the failed one keeps as `next_attempt_at`.
 *
 * A PENDING row is a job of the PostgreSQL job queue (graphile-worker), enqueued by the trigger
 * below in the transaction that inserts the row: in the one that records the event (the events'
 * append inserts the rows of the endpoints that subscribe), in the one that records a failed
 * attempt, in a redelivery's. The function resolves `graphile_worker.add_job` when it runs, after
 * a later migration has installed the queue's schema (JobQueueSchema).
 *
 * `claimed_by` names the worker making a PENDING attempt (see WebhookQueue's recovery): the job
 * queue releases a job whose worker died only after hours, so a worker that stopped mid-attempt
 * is found by its session lock, and its attempts are made again.
 */
export class Webhooks1764162000000 implements MigrationInterface {
  name = 'Webhooks1764162000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        member_id text NOT NULL REFERENCES members(id) ON DELETE CASCADE,
        api_key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        url text NOT NULL CHECK (char_length(url) <= 2048),
        event_types text[] NOT NULL,
        description text,
        status text NOT NULL CHECK (status IN ('ENABLED', 'DISABLED')),
        disabled_reason text,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_until timestamptz,
        failing_since timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX webhook_endpoints_page_idx ON webhook_endpoints (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (workspace_id) WHERE status = 'ENABLED'`,
    );
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_id text NOT NULL,
        attempt integer NOT NULL CHECK (attempt >= 1),
        status text NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
        scheduled_at timestamptz NOT NULL,
        attempted_at timestamptz,
        response_status integer,
        duration_ms integer,
        error text,
        next_attempt_at timestamptz,
        claimed_by text,
        claimed_at timestamptz,
        created_at timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_claimed_idx ON webhook_deliveries (claimed_at) WHERE status = 'PENDING' AND claimed_at IS NOT NULL`,
    );
    await q.query(`
      CREATE FUNCTION webhook_delivery_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM graphile_worker.add_job('webhook_delivery', json_build_object('deliveryId', NEW.id),
                                        run_at := NEW.scheduled_at, job_key := 'webhook_delivery:' || NEW.id);
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER webhook_delivery_enqueue AFTER INSERT ON webhook_deliveries
        FOR EACH ROW WHEN (NEW.status = 'PENDING') EXECUTE FUNCTION webhook_delivery_enqueue()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP FUNCTION webhook_delivery_enqueue()`);
    await q.query(`DROP TABLE webhook_endpoints`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The delivery log's retention and its one retry layer (docs/api.md §13).
 *
 * Attempts made are removed after WEBHOOK_DELIVERY_RETENTION_DAYS, oldest first, in batches: the
 * index on the `created_at` of the attempts made finds each batch without reading the rest of the
 * log. PENDING attempts are never removed.
 *
 * A page of the log counts the endpoint's attempts (`totalCount`, docs/api.md §3) from the index
 * on `endpoint_id` alone: deduplicated, it is about a tenth of the page index's size, and read
 * without the table (an index-only scan) while the visibility map is current, which autovacuum
 * keeps so here after 1 % of the table was written rather than 20 %. Measured on 200,000 attempts
 * of one endpoint (of 2,000,000): the count reads 172 pages in 18 to 90 ms (a loaded 2-core
 * machine), where it read about 1,700 of the page index in 50 to 60 ms, and 26,600 pages of the
 * table in 440 ms while the visibility map was not yet current. The count still grows with the
 * endpoint's attempts, which the retention bounds.
 *
 * A delivery job runs once (`max_attempts` 1): a failed attempt is followed by the next one of
 * WEBHOOK_RETRY_SCHEDULE, written with its outcome; graphile-worker's own retries (25, with its
 * backoff) came on top of those for a job that threw. `webhook_delivery_job` enqueues an attempt's
 * job, for the trigger and for the queue's recovery, which enqueues again a PENDING attempt whose
 * job failed for good (found through the index on the PENDING attempts' `scheduled_at`).
 */
export class DeliveryLogRetention1795887200000 implements MigrationInterface {
  name = 'DeliveryLogRetention1795887200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX webhook_deliveries_made_idx ON webhook_deliveries (created_at) WHERE status <> 'PENDING'`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (scheduled_at) WHERE status = 'PENDING'`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_count_idx ON webhook_deliveries (endpoint_id)`);
    await q.query(
      `ALTER TABLE webhook_deliveries SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_insert_scale_factor = 0.01)`,
    );
    await q.query(`
      CREATE FUNCTION webhook_delivery_job(delivery_id bigint, due timestamptz) RETURNS void LANGUAGE sql AS $$
        SELECT FROM graphile_worker.add_job('webhook_delivery', json_build_object('deliveryId', delivery_id),
                                            run_at := due, job_key := 'webhook_delivery:' || delivery_id, max_attempts := 1)
      $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION webhook_delivery_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM webhook_delivery_job(NEW.id, NEW.scheduled_at);
        RETURN NEW;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION webhook_delivery_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM graphile_worker.add_job('webhook_delivery', json_build_object('deliveryId', NEW.id),
                                        run_at := NEW.scheduled_at, job_key := 'webhook_delivery:' || NEW.id);
        RETURN NEW;
      END $$`);
    await q.query(`DROP FUNCTION webhook_delivery_job(bigint, timestamptz)`);
    await q.query(
      `ALTER TABLE webhook_deliveries RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_scale_factor)`,
    );
    await q.query(`DROP INDEX webhook_deliveries_count_idx`);
    await q.query(`DROP INDEX webhook_deliveries_pending_idx`);
    await q.query(`DROP INDEX webhook_deliveries_made_idx`);
  }
}

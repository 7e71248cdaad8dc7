import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook fan-out off the write path (docs/api.md §13). A write no longer inserts an attempt per
 * subscribed endpoint: it enqueues one `webhook_fanout` job for its events, and the worker that
 * runs it inserts the first attempts, claimed by itself, and makes them. So:
 *  - a first attempt exists once per endpoint and event, whatever the number of times the fan-out
 *    runs (a job run again after its worker was killed inserts what is missing, nothing twice);
 *  - an attempt inserted claimed is made by its claimant, not by a job of its own: the trigger
 *    enqueues only the unclaimed ones (the retries, redeliveries and attempts made again after
 *    an instance stopped), as it did every attempt before.
 */
export class WebhookFanOut1795887300000 implements MigrationInterface {
  name = 'WebhookFanOut1795887300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE UNIQUE INDEX webhook_deliveries_first_attempt_idx ON webhook_deliveries (endpoint_id, event_id) WHERE attempt = 1`,
    );
    await q.query(`DROP TRIGGER webhook_delivery_enqueue ON webhook_deliveries`);
    await q.query(`
      CREATE TRIGGER webhook_delivery_enqueue AFTER INSERT ON webhook_deliveries
        FOR EACH ROW WHEN (NEW.status = 'PENDING' AND NEW.claimed_by IS NULL) EXECUTE FUNCTION webhook_delivery_enqueue()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER webhook_delivery_enqueue ON webhook_deliveries`);
    await q.query(`
      CREATE TRIGGER webhook_delivery_enqueue AFTER INSERT ON webhook_deliveries
        FOR EACH ROW WHEN (NEW.status = 'PENDING') EXECUTE FUNCTION webhook_delivery_enqueue()`);
    await q.query(`DROP INDEX webhook_deliveries_first_attempt_idx`);
  }
}

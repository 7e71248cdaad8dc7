import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox's row no longer notifies in its write's transaction: a NOTIFY there holds
 * PostgreSQL's notification lock through the write's commit, so every write that notifies commits
 * one at a time. The workers wake on the appends' signal instead, which the writing process sends
 * once its transaction has committed (Notifications.notify); a worker of the previous version,
 * still listening to `webhook_outbox`, finds the rows on its idle look.
 */
export class OutboxSignalAfterCommit1795888000000 implements MigrationInterface {
  name = 'OutboxSignalAfterCommit1795888000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER webhook_outbox_signal ON webhook_outbox`);
    await q.query(`DROP FUNCTION webhook_outbox_signal()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION webhook_outbox_signal() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('webhook_outbox', '');
        RETURN NULL;
      END $$`);
    await q.query(
      `CREATE TRIGGER webhook_outbox_signal AFTER INSERT ON webhook_outbox FOR EACH ROW EXECUTE FUNCTION webhook_outbox_signal()`,
    );
  }
}

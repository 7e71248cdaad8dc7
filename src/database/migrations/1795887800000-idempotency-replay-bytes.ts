import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A stored response is kept as `json`, the text as sent, rather than `jsonb`, which orders an
 * object's members by its own rule: a replay must be the first answer's very bytes, members in
 * their order, and nothing ever queries inside a stored body. Responses stored before keep the
 * order jsonb gave them (it did not keep the original), for the 24 hours they replay.
 */
export class IdempotencyReplayBytes1795887800000 implements MigrationInterface {
  name = 'IdempotencyReplayBytes1795887800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE idempotency_keys ALTER COLUMN response_body TYPE json USING response_body::json`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE idempotency_keys ALTER COLUMN response_body TYPE jsonb USING response_body::jsonb`,
    );
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A record's fields hold at most 2 MiB of JSON text. A request body is at most 1 MiB, but updates
 * add to what is stored, field after field, so without a bound one record grew to tens of MB and a
 * page of them to gigabytes of response (found by a black-box cost hunt). 2 MiB leaves room for the
 * spaces PostgreSQL's text form adds to any document one request can send. Rows already stored are
 * not checked (NOT VALID): the bound applies to every write from now on.
 */
export class RecordFieldsSize1763809200000 implements MigrationInterface {
  name = 'RecordFieldsSize1763809200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE records ADD CONSTRAINT records_fields_size CHECK (octet_length(fields::text) <= 2097152) NOT VALID`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE records DROP CONSTRAINT records_fields_size`);
  }
}

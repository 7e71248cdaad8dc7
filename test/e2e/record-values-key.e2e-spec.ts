import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { RecordValuesKey1795887700000 } from '../../src/database/migrations/1795887700000-record-values-key';
import { ScratchDatabase } from '../support/scratch-database';

/**
 * The migration that gives `record_values` its primary key rebuilds the rows from `records`: the
 * rebuilt rows must be the ones the trigger writes, a value repeated in a field included (which is
 * why the key is the value's position, not the value).
 */
describe('the migration that gives record_values a primary key', () => {
  const scratch = new ScratchDatabase('records_values_key');
  let database: DataSource;

  const values = (): Promise<unknown[]> =>
    database.query(
      `SELECT workspace_id, record_id, field_key, ordinal, object_type, text_value, number_value, created_at
         FROM record_values ORDER BY workspace_id, record_id, field_key, ordinal`,
    );

  beforeAll(async () => {
    await scratch.create();
    // One connection for the migration's query runner, one for the reads between its steps.
    database = new DataSource({ ...buildDataSourceOptions(scratch.url), extra: { max: 2 } });
    await database.initialize();
    await database.query(`INSERT INTO workspaces (id, name) VALUES ('wks_one', 'one')`);
    await database.query(
      `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
       VALUES ('acc_one', 'wks_one', 'account', $1, now()), ('acc_two', 'wks_one', 'account', '{"$name": "Other"}', now())`,
      [JSON.stringify({ $name: 'Acme', tags: ['b', 'a', 'b'], mixed: [1, { skipped: true }, 'z'], size: 12.5 })],
    );
  });
  afterAll(async () => {
    await database?.destroy();
    await scratch.drop();
  });

  it('numbers each value by its position in its field, and goes down and up again to the rows the trigger wrote', async () => {
    const written = await values();
    expect(written).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ record_id: 'acc_one', field_key: 'tags', ordinal: 1, text_value: 'b' }),
        expect.objectContaining({ record_id: 'acc_one', field_key: 'tags', ordinal: 2, text_value: 'a' }),
        expect.objectContaining({ record_id: 'acc_one', field_key: 'tags', ordinal: 3, text_value: 'b' }),
        expect.objectContaining({ record_id: 'acc_one', field_key: 'mixed', ordinal: 3, text_value: 'z' }),
        expect.objectContaining({ record_id: 'acc_one', field_key: 'size', ordinal: 1, number_value: '12.5' }),
      ]),
    );
    expect(written).toHaveLength(8);

    const migration = new RecordValuesKey1795887700000();
    const runner = database.createQueryRunner();
    try {
      await runner.startTransaction();
      await migration.down(runner);
      await runner.commitTransaction();
      const indexes = await database.query<{ indexname: string }[]>(
        `SELECT indexname FROM pg_indexes WHERE tablename = 'record_values' AND indexname IN ('record_values_pkey', 'record_values_record_idx')`,
      );
      expect(indexes).toEqual([{ indexname: 'record_values_record_idx' }]);
      // The trigger as it was writes the values without a position.
      await database.query(`UPDATE records SET fields = fields || '{"tags": ["c"]}' WHERE id = 'acc_one'`);

      await runner.startTransaction();
      await migration.up(runner);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    await database.query(`UPDATE records SET fields = fields || '{"tags": ["b", "a", "b"]}' WHERE id = 'acc_one'`);
    expect(await values()).toEqual(written);
  });
});

import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { runMigrations } from '../../src/database/migrate';
import { createWorkspace } from '../support/factories';
import { ScratchDatabase } from '../support/scratch-database';
import { createTestApp, v1Headers } from '../support/test-app';

/**
 * `npm run migration:revert` is how an operator backs a release out: every migration's `down` must
 * run, on a database with data in it, and undo exactly what its `up` made, so that the next `up`
 * finds a clean slate.
 */
describe('migrations', () => {
  const database = new ScratchDatabase('records_migrations');
  const { url } = database;

  /** Notes, a link and a custom type written through the API on `url`; the created note's id. */
  const writeThroughTheApi = async (): Promise<string> => {
    const t = await createTestApp({ env: { DATABASE_URL: url } });
    try {
      const ws = await createWorkspace(t.http);
      const account = await t.http
        .post('/v1/accounts')
        .set(v1Headers(ws.key))
        .send({ fields: { $name: 'Acme' } });
      const note = await t.http
        .post('/v1/notes')
        .set(v1Headers(ws.key))
        .send({ fields: { $title: 'Kick-off' }, relationships: { $account: [account.body.id] } });
      expect(note.status).toBe(200);
      return note.body.id;
    } finally {
      await t.close();
    }
  };

  beforeAll(() => database.create({ migrate: false }));
  afterAll(() => database.drop());

  it('reverts every migration on a database in use, leaving nothing behind, and applies them all again', async () => {
    const applied = await runMigrations(url);
    expect(applied.length).toBeGreaterThan(0);
    await writeThroughTheApi();

    const dataSource = new DataSource({ ...buildDataSourceOptions(url), extra: { max: 1 } });
    await dataSource.initialize();
    try {
      for (let left = applied.length; left > 0; left -= 1) await dataSource.undoLastMigration({ transaction: 'each' });
      expect(await dataSource.query(`SELECT count(*)::int AS n FROM typeorm_migrations`)).toEqual([{ n: 0 }]);
      const leftovers = await dataSource.query(
        `SELECT 'table ' || relname AS name FROM pg_class
          WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p', 'v', 'm', 'S') AND relname NOT LIKE 'typeorm_migrations%'
         UNION ALL
         SELECT 'function ' || proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace
         UNION ALL
         SELECT 'type ' || typname FROM pg_type
          WHERE typnamespace = 'public'::regnamespace AND typtype IN ('e', 'd', 'c') AND typrelid = 0`,
      );
      expect(leftovers).toEqual([]);
    } finally {
      await dataSource.destroy();
    }

    expect(await runMigrations(url)).toEqual(applied);
    expect(await writeThroughTheApi()).toMatch(/^note_/);
  });
});

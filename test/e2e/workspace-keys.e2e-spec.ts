import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { WorkspaceKeys1795887600000 } from '../../src/database/migrations/1795887600000-workspace-keys';
import { PROBE_TABLE } from '../support/probe-controllers';
import { ScratchDatabase } from '../support/scratch-database';
import { testDatabaseUrl } from '../support/test-app';

/**
 * A schema ready to be sharded by workspace: distributed (Citus) by
 * `workspace_id`, Citus enforces only the primary keys, unique indexes and foreign keys that hold
 * it. So every table of a workspace's data has a `workspace_id`, in its primary key and every
 * unique index, and each of its foreign keys to another workspace table pairs the two
 * `workspace_id`s (a foreign key to `workspaces` pairs it with the workspace's id). This reads the
 * migrated database's catalogue and names every table, key and index that is not so.
 */

/** The tables of the public schema that hold no workspace's data, and why. */
const NOT_OF_A_WORKSPACE: Record<string, string> = {
  workspaces: "the tenants themselves: distributed by their own id, the value of every other table's workspace_id",
  typeorm_migrations: "the operator's: which migrations ran (a Citus reference table)",
  search_system_fields:
    'the catalogue of system fields that a migration writes and no request does (a Citus reference table)',
  [PROBE_TABLE]: 'made in the test database by another test file for its probe routes; no migration makes it',
};

/** The schemas other than public whose tables are not of a workspace, and why. */
const OTHER_SCHEMAS: Record<string, string> = {
  graphile_worker:
    "the job queue's (graphile-worker): jobs of every workspace, taken by any worker; stays on the coordinator",
};

interface TableRow {
  schema: string;
  name: string;
  workspace_column: boolean;
}

interface UniqueIndexRow {
  table_name: string;
  index_name: string;
  definition: string;
  holds_workspace: boolean;
}

interface ForeignKeyRow {
  table_name: string;
  constraint_name: string;
  definition: string;
  parent: string;
  pairs_workspace: boolean;
}

type Query = (sql: string, parameters?: unknown[]) => Promise<unknown[]>;

/** Every way the schema fails to be shardable by workspace, one sentence each, read through `query`. */
async function workspaceKeyViolations(query: Query): Promise<string[]> {
  const tables = (await query(
    `SELECT n.nspname AS schema, c.relname AS name,
            EXISTS (SELECT 1 FROM pg_attribute a
                     WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND a.attnotnull AND NOT a.attisdropped) AS workspace_column
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%'
      ORDER BY 1, 2`,
  )) as TableRow[];
  const violations: string[] = [];
  const workspaceTables: string[] = [];
  for (const table of tables) {
    if (table.schema !== 'public') {
      if (!(table.schema in OTHER_SCHEMAS))
        violations.push(`table ${table.schema}.${table.name}: a schema not listed apart`);
    } else if (!(table.name in NOT_OF_A_WORKSPACE)) {
      workspaceTables.push(table.name);
      if (!table.workspace_column) violations.push(`table ${table.name}: no workspace_id NOT NULL column`);
    }
  }
  // Key columns only (not INCLUDE ones); an expression never counts as the column.
  const uniques = (await query(
    `SELECT c.relname AS table_name, i.relname AS index_name, pg_get_indexdef(x.indexrelid) AS definition,
            EXISTS (SELECT 1 FROM unnest((x.indkey::int2[])[0:x.indnkeyatts - 1]) k(attnum)
                      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
                     WHERE a.attname = 'workspace_id') AS holds_workspace
       FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1) AND (x.indisunique OR x.indisexclusion)
      ORDER BY 1, 2`,
    [workspaceTables],
  )) as UniqueIndexRow[];
  for (const index of uniques) {
    if (!index.holds_workspace)
      violations.push(
        `unique index ${index.index_name} of ${index.table_name} lacks workspace_id: ${index.definition}`,
      );
  }
  // A pair of the key's columns: workspace_id of the child with workspace_id of a workspace table, or with workspaces.id.
  const foreignKeys = (await query(
    `SELECT c.relname AS table_name, k.conname AS constraint_name, pg_get_constraintdef(k.oid) AS definition,
            p.relname AS parent,
            EXISTS (SELECT 1 FROM unnest(k.conkey, k.confkey) pair(child_attnum, parent_attnum)
                      JOIN pg_attribute child ON child.attrelid = k.conrelid AND child.attnum = pair.child_attnum
                      JOIN pg_attribute parent ON parent.attrelid = k.confrelid AND parent.attnum = pair.parent_attnum
                     WHERE child.attname = 'workspace_id'
                       AND parent.attname = CASE WHEN p.relname = 'workspaces' THEN 'id' ELSE 'workspace_id' END) AS pairs_workspace
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
      WHERE k.contype = 'f' AND c.relnamespace = 'public'::regnamespace AND c.relname = ANY($1)
      ORDER BY 1, 2`,
    [workspaceTables],
  )) as ForeignKeyRow[];
  for (const key of foreignKeys) {
    const parentIsShared = key.parent !== 'workspaces' && !workspaceTables.includes(key.parent);
    if (parentIsShared)
      violations.push(
        `foreign key ${key.constraint_name} of ${key.table_name} references ${key.parent}, which is not a workspace table`,
      );
    else if (!key.pairs_workspace)
      violations.push(
        `foreign key ${key.constraint_name} of ${key.table_name} does not pair workspace_id: ${key.definition}`,
      );
  }
  return violations;
}

describe('a schema ready to shard by workspace', () => {
  let database: DataSource;

  beforeAll(async () => {
    database = new DataSource({ ...buildDataSourceOptions(testDatabaseUrl()), extra: { max: 1 } });
    await database.initialize();
  });
  afterAll(() => database.destroy());

  it('holds workspace_id in every primary key, unique index and foreign key of a workspace table', async () => {
    expect(await workspaceKeyViolations((sql, parameters) => database.query(sql, parameters))).toEqual([]);
  });

  it('lists apart only tables and schemas that exist', async () => {
    const listed = Object.keys(NOT_OF_A_WORKSPACE).filter((name) => name !== PROBE_TABLE);
    const missingTables = await database.query<unknown[]>(
      `SELECT name FROM unnest($1::text[]) name WHERE to_regclass('public.' || quote_ident(name)) IS NULL`,
      [listed],
    );
    expect(missingTables).toEqual([]);
    const schemas = await database.query<unknown[]>(`SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)`, [
      Object.keys(OTHER_SCHEMAS),
    ]);
    expect(schemas).toHaveLength(Object.keys(OTHER_SCHEMAS).length);
  });

  it('names a table without workspace_id, a unique index without it and a foreign key that does not pair it', async () => {
    const runner = database.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(
        `CREATE TABLE shard_probe_parent (id text PRIMARY KEY, workspace_id text NOT NULL, UNIQUE (workspace_id, id))`,
      );
      await runner.query(
        `CREATE TABLE shard_probe_child (workspace_id text NOT NULL, parent_id text REFERENCES shard_probe_parent (id))`,
      );
      await runner.query(`CREATE TABLE shard_probe_orphan (id text PRIMARY KEY)`);
      const violations = await workspaceKeyViolations((sql, parameters) => runner.query(sql, parameters));
      expect(violations.filter((violation) => violation.includes('shard_probe_'))).toEqual([
        expect.stringMatching(/^table shard_probe_orphan: no workspace_id/),
        expect.stringMatching(/^unique index shard_probe_orphan_pkey of shard_probe_orphan lacks workspace_id/),
        expect.stringMatching(/^unique index shard_probe_parent_pkey of shard_probe_parent lacks workspace_id/),
        expect.stringMatching(
          /^foreign key shard_probe_child_parent_id_fkey of shard_probe_child does not pair workspace_id/,
        ),
      ]);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});

describe('the migration that puts workspace_id in the keys', () => {
  const scratch = new ScratchDatabase('records_workspace_keys');
  let database: DataSource;

  /** The keys, indexes and search trigger of the schema, as the catalogue defines them. */
  const schemaDefinition = async (): Promise<string[]> =>
    (
      await database.query<{ definition: string }[]>(
        `SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS definition FROM pg_constraint
          WHERE connamespace = 'public'::regnamespace AND contype IN ('p', 'u', 'f')
         UNION ALL
         SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'
         UNION ALL
         SELECT pg_get_functiondef('search_documents_refresh'::regproc)
         UNION ALL
         SELECT pg_get_functiondef('search_documents_update'::regproc)
         ORDER BY 1`,
      )
    ).map((row) => row.definition);

  /** Each row of the tables that get a workspace_id, with it and the workspace of the parent row it was copied from. */
  const adoptedRows = (): Promise<unknown[]> =>
    database.query(
      `SELECT 'idempotency' AS row, i.workspace_id, k.workspace_id AS parent FROM idempotency_keys i JOIN api_keys k ON k.id = i.api_key_id
       UNION ALL SELECT 'list member', m.workspace_id, l.workspace_id FROM list_members m JOIN lists l ON l.id = m.list_id
       UNION ALL SELECT 'delivery', d.workspace_id, e.workspace_id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       ORDER BY 1, 2`,
    );

  beforeAll(async () => {
    await scratch.create();
    // One connection for the migration's query runner, one for the reads between its steps.
    database = new DataSource({ ...buildDataSourceOptions(scratch.url), extra: { max: 2 } });
    await database.initialize();
    // Two workspaces, each with a row of every table whose key changes (a record's search document and values come from its trigger).
    for (const ws of ['wks_one', 'wks_two']) {
      await database.query(
        `WITH workspace AS (INSERT INTO workspaces (id, name) VALUES ($1, $1)),
         member AS (INSERT INTO members (id, workspace_id, email, role) VALUES ($1 || '_mem', $1, $1 || '@example.com', 'admin')),
         api_key AS (INSERT INTO api_keys (id, workspace_id, member_id, key_hash, scopes) VALUES ($1 || '_key', $1, $1 || '_mem', repeat(md5($1), 2), '{*}')),
         record AS (INSERT INTO records (id, workspace_id, object_type, fields, created_at) VALUES ($1 || '_acc', $1, 'account', '{"$name": "Acme"}', now())),
         list AS (INSERT INTO lists (id, workspace_id, name, object_type, created_at) VALUES ($1 || '_list', $1, 'Targets', 'account', now())),
         endpoint AS (
           INSERT INTO webhook_endpoints (id, workspace_id, member_id, api_key_id, url, event_types, status, secret, created_at, updated_at)
           VALUES ($1 || '_whk', $1, $1 || '_mem', $1 || '_key', 'http://127.0.0.1:9/', '{*}', 'ENABLED', 'secret', now(), now()))
         SELECT`,
        [ws],
      );
      await database.query(
        `INSERT INTO record_links (workspace_id, source_id, link, target_id) VALUES ($1, $1 || '_acc', 'account:$createdBy', $1 || '_mem')`,
        [ws],
      );
      await database.query(
        `INSERT INTO list_members (workspace_id, list_id, record_id) VALUES ($1, $1 || '_list', $1 || '_acc')`,
        [ws],
      );
      await database.query(
        `INSERT INTO idempotency_keys (workspace_id, api_key_id, key, fingerprint, response_status, response_body) VALUES ($1, $1 || '_key', 'k', 'f', 200, '{}')`,
        [ws],
      );
      await database.query(
        `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, attempt, status, scheduled_at, created_at)
         VALUES ($1, $1 || '_whk', 'evt_' || $1, 1, 'SUCCEEDED', now(), now())`,
        [ws],
      );
    }
  });
  afterAll(async () => {
    await database?.destroy();
    await scratch.drop();
  });

  it('goes down and up again on a database with rows, filling each new workspace_id from the parent row', async () => {
    const migrated = await schemaDefinition();
    const rows = await adoptedRows();
    expect(rows).toHaveLength(6);
    const migration = new WorkspaceKeys1795887600000();
    const runner = database.createQueryRunner();
    try {
      await runner.startTransaction();
      await migration.down(runner);
      await runner.commitTransaction();
      const reverted = await schemaDefinition();
      expect(reverted).toContain('records records_pkey PRIMARY KEY (id)');
      expect(reverted).toContain(
        'list_members list_members_list_id_fkey FOREIGN KEY (list_id) REFERENCES lists(id) ON DELETE CASCADE',
      );
      expect(
        await database.query(
          `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'workspace_id' AND table_name = ANY($1)`,
          [['idempotency_keys', 'list_members', 'webhook_deliveries']],
        ),
      ).toEqual([]);

      await runner.startTransaction();
      await migration.up(runner);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(await schemaDefinition()).toEqual(migrated);
    expect(await adoptedRows()).toEqual(rows);
    expect(rows).toEqual(expect.arrayContaining([{ row: 'delivery', workspace_id: 'wks_two', parent: 'wks_two' }]));
  });
});

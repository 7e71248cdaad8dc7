import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { PROBE_TABLE } from '../support/probe-controllers';
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
  search_system_fields: 'the catalogue of system fields that a migration writes and no request does (a Citus reference table)',
  [PROBE_TABLE]: 'made in the test database by another test file for its probe routes; no migration makes it',
};

/** The schemas other than public whose tables are not of a workspace, and why. */
const OTHER_SCHEMAS: Record<string, string> = {
  graphile_worker: "the job queue's (graphile-worker): jobs of every workspace, taken by any worker; stays on the coordinator",
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
      if (!(table.schema in OTHER_SCHEMAS)) violations.push(`table ${table.schema}.${table.name}: a schema not listed apart`);
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
    if (!index.holds_workspace) violations.push(`unique index ${index.index_name} of ${index.table_name} lacks workspace_id: ${index.definition}`);
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
    if (parentIsShared) violations.push(`foreign key ${key.constraint_name} of ${key.table_name} references ${key.parent}, which is not a workspace table`);
    else if (!key.pairs_workspace) violations.push(`foreign key ${key.constraint_name} of ${key.table_name} does not pair workspace_id: ${key.definition}`);
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
    const missingTables = (await database.query(
      `SELECT name FROM unnest($1::text[]) name WHERE to_regclass('public.' || quote_ident(name)) IS NULL`,
      [listed],
    )) as unknown[];
    expect(missingTables).toEqual([]);
    const schemas = (await database.query(`SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)`, [Object.keys(OTHER_SCHEMAS)])) as unknown[];
    expect(schemas).toHaveLength(Object.keys(OTHER_SCHEMAS).length);
  });

  it('names a table without workspace_id, a unique index without it and a foreign key that does not pair it', async () => {
    const runner = database.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(`CREATE TABLE shard_probe_parent (id text PRIMARY KEY, workspace_id text NOT NULL, UNIQUE (workspace_id, id))`);
      await runner.query(`CREATE TABLE shard_probe_child (workspace_id text NOT NULL, parent_id text REFERENCES shard_probe_parent (id))`);
      await runner.query(`CREATE TABLE shard_probe_orphan (id text PRIMARY KEY)`);
      const violations = await workspaceKeyViolations((sql, parameters) => runner.query(sql, parameters));
      expect(violations.filter((violation) => violation.includes('shard_probe_'))).toEqual([
        expect.stringMatching(/^table shard_probe_orphan: no workspace_id/),
        expect.stringMatching(/^unique index shard_probe_orphan_pkey of shard_probe_orphan lacks workspace_id/),
        expect.stringMatching(/^unique index shard_probe_parent_pkey of shard_probe_parent lacks workspace_id/),
        expect.stringMatching(/^foreign key shard_probe_child_parent_id_fkey of shard_probe_child does not pair workspace_id/),
      ]);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});

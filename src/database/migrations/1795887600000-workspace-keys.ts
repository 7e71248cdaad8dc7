import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A schema ready to be sharded by workspace (Citus, distributed by `workspace_id`), which can only
 * enforce primary keys, unique constraints and foreign keys that hold the distribution column:
 * every workspace table's primary key and unique indexes hold `workspace_id`, and a foreign key
 * between two workspace tables pairs their `workspace_id`s (test/e2e/workspace-keys.e2e-spec.ts
 * reads the catalogue and names any that does not).
 *
 * Nothing becomes less unique: every id is a ULID or an identity, unique by construction, and
 * (id, workspace_id) is as unique as id was. The id stays the first column of its key, so that
 * every lookup by id, with or without its workspace (an API key by its id, before the workspace
 * is known; a delivery attempt by the id its job carries), reads the same index as before and no
 * plan changes. The three tables whose rows belonged to a workspace only through their parent
 * (stored responses, list members, delivery attempts) get a `workspace_id` of their own, filled
 * from the parent.
 *
 * Each key is rebuilt under its table's exclusive lock: the migration holds writes to the tables
 * for the time it takes to index them.
 */

/** A primary key without `workspace_id`, by its columns: the workspace is added last. */
const PRIMARY_KEYS: Record<string, string[]> = {
  members: ['id'],
  api_keys: ['id'],
  idempotency_keys: ['api_key_id', 'key'],
  field_definitions: ['id'],
  relationship_definitions: ['id'],
  records: ['id'],
  record_links: ['source_id', 'link', 'target_id'],
  files: ['id'],
  lists: ['id'],
  list_members: ['list_id', 'record_id'],
  webhook_endpoints: ['id'],
  webhook_deliveries: ['id'],
  search_documents: ['record_id'],
};

/** The tables that get a `workspace_id`, copied from the parent row that `column` references. */
const ADOPTED: { table: string; column: string; parent: string }[] = [
  { table: 'idempotency_keys', column: 'api_key_id', parent: 'api_keys' },
  { table: 'list_members', column: 'list_id', parent: 'lists' },
  { table: 'webhook_deliveries', column: 'endpoint_id', parent: 'webhook_endpoints' },
];

/** Foreign keys of one column to another workspace table's id, all ON DELETE CASCADE; each becomes (workspace_id, column). */
const FOREIGN_KEYS: { table: string; column: string; parent: string }[] = [
  { table: 'api_keys', column: 'member_id', parent: 'members' },
  { table: 'idempotency_keys', column: 'api_key_id', parent: 'api_keys' },
  { table: 'record_links', column: 'source_id', parent: 'records' },
  { table: 'files', column: 'member_id', parent: 'members' },
  { table: 'list_members', column: 'list_id', parent: 'lists' },
  { table: 'list_members', column: 'record_id', parent: 'records' },
  { table: 'record_values', column: 'record_id', parent: 'records' },
  { table: 'webhook_endpoints', column: 'member_id', parent: 'members' },
  { table: 'webhook_endpoints', column: 'api_key_id', parent: 'api_keys' },
  { table: 'webhook_deliveries', column: 'endpoint_id', parent: 'webhook_endpoints' },
  { table: 'search_documents', column: 'record_id', parent: 'records' },
];

/** Unique indexes and constraints without `workspace_id`, as made before and after. */
const UNIQUES: { before: string; after: string; drop: string }[] = [
  {
    before: `CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash)`,
    after: `CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash, workspace_id)`,
    drop: `DROP INDEX api_keys_key_hash_key`,
  },
  {
    before: `ALTER TABLE events ADD CONSTRAINT events_id_key UNIQUE (id)`,
    after: `ALTER TABLE events ADD CONSTRAINT events_id_key UNIQUE (id, workspace_id)`,
    drop: `ALTER TABLE events DROP CONSTRAINT events_id_key`,
  },
  {
    before: `CREATE UNIQUE INDEX webhook_deliveries_first_attempt_idx ON webhook_deliveries (endpoint_id, event_id) WHERE attempt = 1`,
    after: `CREATE UNIQUE INDEX webhook_deliveries_first_attempt_idx ON webhook_deliveries (endpoint_id, event_id, workspace_id) WHERE attempt = 1`,
    drop: `DROP INDEX webhook_deliveries_first_attempt_idx`,
  },
];

/** The search trigger's upsert names its conflict target, the primary key of search_documents. */
const SEARCH_CONFLICT_BEFORE = 'ON CONFLICT (record_id) DO UPDATE';
const SEARCH_CONFLICT_AFTER = 'ON CONFLICT (record_id, workspace_id) DO UPDATE';

export class WorkspaceKeys1795887600000 implements MigrationInterface {
  name = 'WorkspaceKeys1795887600000';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, column, parent } of ADOPTED) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN workspace_id text`);
      await q.query(`UPDATE ${table} t SET workspace_id = p.workspace_id FROM ${parent} p WHERE p.id = t.${column}`);
      await q.query(`ALTER TABLE ${table} ALTER COLUMN workspace_id SET NOT NULL`);
    }
    for (const key of FOREIGN_KEYS)
      await q.query(`ALTER TABLE ${key.table} DROP CONSTRAINT ${key.table}_${key.column}_fkey`);
    for (const [table, columns] of Object.entries(PRIMARY_KEYS))
      await replacePrimaryKey(q, table, [...columns, 'workspace_id']);
    for (const unique of UNIQUES) {
      await q.query(unique.drop);
      await q.query(unique.after);
    }
    for (const key of FOREIGN_KEYS) {
      await q.query(
        `ALTER TABLE ${key.table} ADD CONSTRAINT ${key.table}_${key.column}_fkey
           FOREIGN KEY (workspace_id, ${key.column}) REFERENCES ${key.parent} (workspace_id, id) ON DELETE CASCADE`,
      );
    }
    await rewriteSearchTrigger(q, SEARCH_CONFLICT_BEFORE, SEARCH_CONFLICT_AFTER);
  }

  async down(q: QueryRunner): Promise<void> {
    await rewriteSearchTrigger(q, SEARCH_CONFLICT_AFTER, SEARCH_CONFLICT_BEFORE);
    for (const key of FOREIGN_KEYS)
      await q.query(`ALTER TABLE ${key.table} DROP CONSTRAINT ${key.table}_${key.column}_fkey`);
    for (const unique of UNIQUES) {
      await q.query(unique.drop);
      await q.query(unique.before);
    }
    for (const [table, columns] of Object.entries(PRIMARY_KEYS)) await replacePrimaryKey(q, table, columns);
    for (const key of FOREIGN_KEYS) {
      await q.query(
        `ALTER TABLE ${key.table} ADD CONSTRAINT ${key.table}_${key.column}_fkey
           FOREIGN KEY (${key.column}) REFERENCES ${key.parent} (id) ON DELETE CASCADE`,
      );
    }
    for (const { table } of ADOPTED) await q.query(`ALTER TABLE ${table} DROP COLUMN workspace_id`);
  }
}

async function replacePrimaryKey(q: QueryRunner, table: string, columns: string[]): Promise<void> {
  await q.query(
    `ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD CONSTRAINT ${table}_pkey PRIMARY KEY (${columns.join(', ')})`,
  );
}

/**
 * The functions of the search triggers that upsert into search_documents: the row trigger's, kept
 * for SearchStatementTriggers' down, and the statement trigger's update.
 */
const SEARCH_UPSERTS = ['search_documents_refresh', 'search_documents_update'];

/** Redefines each search trigger function with its conflict target replaced, the rest of it as it is. */
async function rewriteSearchTrigger(q: QueryRunner, from: string, to: string): Promise<void> {
  for (const name of SEARCH_UPSERTS) {
    const [{ definition }] = (await q.query(`SELECT pg_get_functiondef($1::regproc) AS definition`, [name])) as {
      definition: string;
    }[];
    if (!definition.includes(from))
      throw new Error(`${name}() no longer says "${from}": rewrite this migration's change of it`);
    await q.query(definition.replace(from, to));
  }
}

import type { DataSource } from 'typeorm';
import { PROBE_TABLE } from '../support/probe-controllers';

/**
 * How a table's rows belong to a workspace, for the tables without a `workspace_id` of their own.
 * Every other table of the schema has one (test/e2e/workspace-keys.e2e-spec.ts); a new table that
 * has neither fails the fingerprint, so that nothing a request may write escapes it.
 */
const OWNED_THROUGH: Record<string, string> = {
  workspaces: 'SELECT w.xmin FROM workspaces w WHERE w.id = $1',
};
/**
 * The migrations' own bookkeeping and the search catalogue of system fields (a migration writes
 * both; no request does), and the table another test file makes in the shared test database for
 * its probe routes, which the fuzzed app does not mount.
 */
const NOT_WORKSPACE_DATA = new Set(['typeorm_migrations', 'search_system_fields', PROBE_TABLE]);

/**
 * A fingerprint of every row of one workspace: per table, how many rows it has and the newest
 * transaction that wrote one (an insert or an update makes a row version with a new `xmin`, a
 * delete lowers the count). The test database is shared with the other test files, which write to
 * workspaces of their own meanwhile, so only this workspace's rows are compared.
 */
export async function workspaceFingerprint(database: DataSource, workspaceId: string): Promise<Record<string, string>> {
  const tables = await database.query<{ name: string; owned: boolean }[]>(
    `SELECT c.relname AS name, bool_or(a.attname = 'workspace_id') AS owned
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
      GROUP BY c.relname
      ORDER BY c.relname`,
  );
  const fingerprint: Record<string, string> = {};
  for (const { name, owned } of tables) {
    if (NOT_WORKSPACE_DATA.has(name)) continue;
    const rows = owned ? `SELECT xmin FROM ${name} WHERE workspace_id = $1` : OWNED_THROUGH[name];
    if (!rows)
      throw new Error(
        `workspace rows: table ${name} has no workspace_id; say in OWNED_THROUGH how its rows belong to a workspace`,
      );
    const [row] = await database.query<{ state: string }[]>(
      `SELECT count(*) || ' rows, newest write ' || coalesce(max(xmin::text::bigint), 0) AS state FROM (${rows}) AS owned`,
      [workspaceId],
    );
    fingerprint[name] = row.state;
  }
  return fingerprint;
}

/** The tables whose rows of the workspace differ between two fingerprints. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys(after).filter((table) => before[table] !== after[table]);
}

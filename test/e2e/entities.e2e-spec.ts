import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { ENTITIES } from '../../src/database/entities';
import { PROBE_TABLE } from '../support/probe-controllers';
import { testDatabaseUrl } from '../support/test-app';

/** `table.column type [null]` for each column, as PostgreSQL names types (udt_name) and with the primary key marked. */
type Columns = string[];

/**
 * Columns an entity cannot declare, per table, as the migrations made them: the test holds the
 * schema to these too, so that the list stays true. `search_documents.written_by`: TypeORM knows no
 * xid8 type (its postgres driver refuses the column); only the search trigger writes it, and only
 * the search statements read it (pg_visible_in_snapshot).
 */
const UNDECLARABLE: Record<string, Columns> = {
  search_documents: ['written_by xid8'],
};

/**
 * The entities are the schema as code reads it, and the migrations are the schema: each entity must
 * say exactly what the migrations made (table, columns, types, nullability, primary key), but for
 * the columns listed in UNDECLARABLE, and every table of the public schema must have one (the job
 * queue's tables are in a schema of their own, graphile_worker, which it migrates).
 */
describe('entities', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = new DataSource({ ...buildDataSourceOptions(testDatabaseUrl()), extra: { max: 1 } });
    await dataSource.initialize();
  });
  afterAll(() => dataSource.destroy());

  const migrated = async (): Promise<Map<string, Columns>> => {
    const rows: { table_name: string; column_name: string; udt_name: string; is_nullable: string; primary: boolean }[] =
      await dataSource.query(
        `SELECT c.table_name, c.column_name, c.udt_name, c.is_nullable,
              EXISTS (SELECT 1 FROM information_schema.key_column_usage k
                        JOIN information_schema.table_constraints t USING (constraint_schema, constraint_name)
                       WHERE t.constraint_type = 'PRIMARY KEY' AND k.table_schema = c.table_schema
                         AND k.table_name = c.table_name AND k.column_name = c.column_name) AS primary
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name NOT LIKE 'typeorm_migrations%'
        ORDER BY c.table_name, c.column_name`,
      );
    const tables = new Map<string, Columns>();
    for (const row of rows) {
      const column = `${row.column_name} ${row.udt_name}${row.is_nullable === 'YES' ? ' null' : ''}${row.primary ? ' primary' : ''}`;
      tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), column]);
    }
    for (const columns of tables.values()) columns.sort();
    return tables;
  };

  /** PostgreSQL's udt_name of an entity column's declared type. */
  const UDT: Record<string, string> = {
    text: 'text',
    integer: 'int4',
    smallint: 'int2',
    bigint: 'int8',
    boolean: 'bool',
    numeric: 'numeric',
    json: 'json',
    jsonb: 'jsonb',
    timestamptz: 'timestamptz',
    tsvector: 'tsvector',
  };

  const declared = (): Map<string, Columns> => {
    const tables = new Map<string, Columns>();
    for (const entity of ENTITIES) {
      const metadata = dataSource.getMetadata(entity);
      const columns = metadata.columns.map((column) => {
        const type = String(column.type);
        const udt = column.isArray ? `_${UDT[type]}` : UDT[type];
        if (!udt) throw new Error(`${metadata.tableName}.${column.databaseName}: no udt_name known for ${type}`);
        return `${column.databaseName} ${udt}${column.isNullable ? ' null' : ''}${column.isPrimary ? ' primary' : ''}`;
      });
      tables.set(metadata.tableName, [...columns, ...(UNDECLARABLE[metadata.tableName] ?? [])].sort());
    }
    return tables;
  };

  it('every table the migrations made in the public schema has an entity', async () => {
    // The probe routes' table is made in the shared test database by another test file, not by a migration.
    const tables = [...(await migrated()).keys()].filter((table) => table !== PROBE_TABLE);
    const entityTables = new Set(declared().keys());
    expect(tables.filter((table) => !entityTables.has(table))).toEqual([]);
  });

  it('each entity has exactly the columns, types, nullability and primary key of its table', async () => {
    const tables = await migrated();
    for (const [table, columns] of declared()) {
      expect({ table, columns }).toEqual({ table, columns: tables.get(table) });
    }
  });
});

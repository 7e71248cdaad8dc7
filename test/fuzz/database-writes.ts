import type { DataSource } from 'typeorm';

async function newTransactionId(database: DataSource): Promise<string> {
  const [row] = (await database.query('SELECT txid_current()::text AS id')) as { id: string }[];
  return row.id;
}

/**
 * Runs `work` and counts the transactions that wrote to the database and committed meanwhile: each
 * write takes a transaction id, and ids are handed out in order, so those between one taken just
 * before and one taken just after are the writes of `work` (requests are sent one at a time). A
 * transaction rolled back, or one that only read, counts for nothing.
 */
export async function committedWritesDuring<T>(database: DataSource, work: () => Promise<T>): Promise<{ result: T; committed: number }> {
  const before = await newTransactionId(database);
  const result = await work();
  const after = await newTransactionId(database);
  const [row] = (await database.query(
    `SELECT count(*)::int AS committed FROM generate_series($1::bigint + 1, $2::bigint - 1) AS id WHERE txid_status(id) = 'committed'`,
    [before, after],
  )) as { committed: number }[];
  return { result, committed: row.committed };
}

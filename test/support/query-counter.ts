import { Client, Connection, type QueryConfig } from 'pg';

/**
 * The SQL statements `run` sends to PostgreSQL from every `pg` client of this process (TypeORM's
 * query runners, transaction statements and Transactions.query alike), as their text. Run requests
 * one at a time while counting, in an app that runs no job queue (test apps serve the API only,
 * unless told): every statement in the window is counted.
 */
export async function countQueries<T>(run: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    const result = await run();
    const texts = spy.mock.calls.map(([query]) => {
      const config = query as string | QueryConfig;
      return typeof config === 'string' ? config : config.text;
    });
    return { result, queries: texts.map((text) => text.replace(/\s+/g, ' ').trim()) };
  } finally {
    spy.mockRestore();
  }
}

/**
 * What `run` sends to PostgreSQL at the wire, from every `pg` client of this process, the pool's
 * included (which `countQueries` does not see): each statement as its name when it has one, else
 * its text; the round trips (each ends with a Sync or is one simple Query, answered by one
 * ReadyForQuery); and the Parse messages (a named statement is parsed once per connection, then
 * only bound and executed). As countQueries, in an app that runs no job queue.
 */
export async function watchWire<T>(
  run: () => Promise<T>,
): Promise<{ result: T; statements: string[]; roundTrips: number; parses: number }> {
  const statements = jest.spyOn(Client.prototype, 'query');
  const syncs = jest.spyOn(Connection.prototype, 'sync');
  const simpleQueries = jest.spyOn(Connection.prototype, 'query');
  const parses = jest.spyOn(Connection.prototype, 'parse');
  try {
    const result = await run();
    return {
      result,
      statements: statements.mock.calls.map(([query]) => {
        const config = query as string | QueryConfig;
        return typeof config === 'string' ? config : (config.name ?? config.text);
      }),
      roundTrips: syncs.mock.calls.length + simpleQueries.mock.calls.length,
      parses: parses.mock.calls.length,
    };
  } finally {
    for (const spy of [statements, syncs, simpleQueries, parses]) spy.mockRestore();
  }
}

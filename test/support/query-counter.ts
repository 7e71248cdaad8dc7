import { Client, Connection, type QueryConfig } from 'pg';

/**
 * Statements of the webhook job queue (graphile-worker), which polls on its own schedule, in its
 * own schema (which it names quoted), and the service's recovery of its jobs: whichever request's
 * window one falls in, it is none of that request's. A write's own enqueuing (add_job) is counted.
 */
const JOB_QUEUE_STATEMENT = /"graphile_worker"|graphile_worker\.(?!add_job\()|"jobs:insert"/;

/**
 * The SQL statements `run` sends to PostgreSQL from every `pg` client of this process (TypeORM's
 * query runners, transaction statements and Transactions.query alike), as their text, but the job
 * queue's polls. Run requests one at a time while counting: every statement in the window is counted.
 */
export async function countQueries<T>(run: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    const result = await run();
    const texts = spy.mock.calls.map(([query]) => {
      const config = query as string | QueryConfig;
      return typeof config === 'string' ? config : config.text;
    });
    return { result, queries: texts.filter((text) => !JOB_QUEUE_STATEMENT.test(text)).map((text) => text.replace(/\s+/g, ' ').trim()) };
  } finally {
    spy.mockRestore();
  }
}

/**
 * What `run` sends to PostgreSQL at the wire, from every `pg` client of this process, the pool's
 * included (which `countQueries` does not see): each statement as its name when it has one, else
 * its text; the round trips (each ends with a Sync or is one simple Query, answered by one
 * ReadyForQuery); and the Parse messages (a named statement is parsed once per connection, then
 * only bound and executed). A window in which the job queue polled (its round trips cannot be told
 * from the service's) is run again, up to five times: `run` must be repeatable.
 */
export async function watchWire<T>(
  run: () => Promise<T>,
): Promise<{ result: T; statements: string[]; roundTrips: number; parses: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const watched = await watchWireOnce(run);
    if (attempt === 5 || !watched.statements.some((statement) => JOB_QUEUE_STATEMENT.test(statement))) return watched;
  }
}

async function watchWireOnce<T>(run: () => Promise<T>): Promise<{ result: T; statements: string[]; roundTrips: number; parses: number }> {
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

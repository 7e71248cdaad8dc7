import { Client, Connection, type QueryConfig } from 'pg';
import { NOTIFICATIONS_PURPOSE } from '../../src/database/notifications';

/**
 * Whether `client` is the process's notifications session (Notifications), whose statements are
 * no request's: it sends, a moment after their commits, what the last moments' writes notify.
 */
function isNotificationsSession(client: unknown): boolean {
  const { application_name: name } = (client as { connectionParameters: { application_name?: string } })
    .connectionParameters;
  return name?.endsWith(` ${NOTIFICATIONS_PURPOSE}`) ?? false;
}

/** The calls of `spy` on a client other than the notifications session (see isNotificationsSession). */
function requestCalls<Args extends unknown[]>(spy: jest.SpyInstance<unknown, Args>): Args[] {
  return spy.mock.calls.filter((_, index) => !isNotificationsSession(spy.mock.contexts[index]));
}

/**
 * The SQL statements `run` sends to PostgreSQL from every `pg` client of this process (TypeORM's
 * query runners, transaction statements and Transactions.query alike), as their text, but for the
 * notifications session's. Run requests one at a time while counting, in an app that runs no job
 * queue (test apps serve the API only, unless told): every statement in the window is counted.
 */
export async function countQueries<T>(run: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const spy = jest.spyOn(Client.prototype, 'query');
  try {
    const result = await run();
    const texts = requestCalls(spy).map(([query]) => {
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
 * included (which `countQueries` does not see), but for the notifications session's: each statement as its name when it has one, else
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
    // The notifications session's statements are sent as it calls query, on its idle connection.
    const notifying = new Set(
      statements.mock.contexts
        .filter(isNotificationsSession)
        .map((client) => (client as { connection: Connection }).connection),
    );
    const onRequests = (spy: jest.SpyInstance) => spy.mock.contexts.filter((connection) => !notifying.has(connection));
    return {
      result,
      statements: requestCalls(statements).map(([query]) => {
        const config = query as string | QueryConfig;
        return typeof config === 'string' ? config : (config.name ?? config.text);
      }),
      roundTrips: onRequests(syncs).length + onRequests(simpleQueries).length,
      parses: onRequests(parses).length,
    };
  } finally {
    for (const spy of [statements, syncs, simpleQueries, parses]) spy.mockRestore();
  }
}

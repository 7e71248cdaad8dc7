import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

/**
 * The SQL statements `run` sends to PostgreSQL through TypeORM (every `manager.query`, repository
 * call and transaction statement of the app in this process goes through a PostgresQueryRunner).
 * Run requests one at a time while counting: every statement in the window is counted.
 */
export async function countQueries<T>(run: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query');
  try {
    const result = await run();
    return { result, queries: spy.mock.calls.map((call) => String(call[0]).replace(/\s+/g, ' ').trim()) };
  } finally {
    spy.mockRestore();
  }
}

import type { Query, QueryConfig } from 'pg';
import type { DataSource } from 'typeorm';
import { AppConfig, loadConfig } from '../config/app-config';
import { connectionSettings } from './data-source-options';
import { Transactions } from './transactions';

/** Transactions on a pool whose one connection records the statements it is sent. */
function recordingTransactions(env: NodeJS.ProcessEnv) {
  const sent: QueryConfig[] = [];
  const connection = {
    // As pg answers a Query it is handed: through its callback.
    query: (query: Query & QueryConfig) => {
      sent.push({ text: query.text, values: query.values, name: query.name });
      (query as unknown as { callback: (error: undefined, result: { rows: [] }) => void }).callback(undefined, {
        rows: [],
      });
    },
    on: () => undefined,
    off: () => undefined,
    release: () => undefined,
  };
  // A statement outside a transaction takes its connection from the driver's pool (Transactions.query).
  const dataSource = { driver: { master: { connect: async () => connection } } } as unknown as DataSource;
  return { transactions: new Transactions(dataSource, new AppConfig(loadConfig(env))), sent };
}

describe('DATABASE_POOL_MODE', () => {
  const pooled = {
    DATABASE_URL: 'postgres://pooler/records',
    DATABASE_DIRECT_URL: 'postgres://db/records',
    DATABASE_POOL_MODE: 'transaction',
  };

  it('names a prepared statement on a session pool, and none through a transaction-mode pooler, whose next server session would not know it', async () => {
    const session = recordingTransactions({ DATABASE_URL: 'postgres://db/records' });
    const transaction = recordingTransactions(pooled);
    for (const { transactions } of [session, transaction])
      await transactions.query('SELECT $1::int', [1], { prepare: 'probe' });
    expect(session.sent[0].name).toMatch(/^probe:/);
    expect(transaction.sent).toEqual([{ text: 'SELECT $1::int', values: [1], name: undefined }]);
  });

  it('sends no startup options through a transaction-mode pooler (PgBouncer refuses them), and one application_name from every process', () => {
    expect(connectionSettings('session', 'app')).toEqual({
      connectionTimeoutMillis: 5000,
      options: '-c jit=off',
      application_name: `records[${process.pid}] app`,
    });
    expect(connectionSettings('transaction', 'app')).toEqual({
      connectionTimeoutMillis: 5000,
      application_name: 'records app',
    });
  });
});

import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Query, type Pool, type PoolClient, type QueryResult } from 'pg';
import {
  DataSource,
  type EntityTarget,
  type ObjectLiteral,
  QueryFailedError,
  type QueryRunner,
  type Repository,
} from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { AppConfig } from '../config/app-config';

/**
 * How many distinct statement texts get a prepared name. Each pooled connection keeps a plan per
 * name for its life, so the names must stay few: statements whose text depends on what a caller
 * sends (filter combinations) run unnamed once this many have been named.
 */
const MAX_PREPARED_STATEMENTS = 256;

/**
 * How a repository's read asks for its rows locked (`SELECT … FOR UPDATE`) until the ambient
 * transaction ends; outside a transaction such a read throws.
 */
export interface RowLock {
  lock?: boolean;
}

/** A transaction of `run`: its query runner, that runner's pg connection, and what runs before its commit. */
interface Transaction {
  runner: QueryRunner;
  connection: PoolClient;
  beforeCommit: (() => Promise<void>)[];
  afterCommit: (() => void)[];
  kept: Map<symbol, unknown>;
}

/**
 * The one way the service reaches PostgreSQL (src/database/database-access.spec.ts keeps it so):
 * `repository` is TypeORM's repository of an entity (its finds and query builders), `query` sends a
 * hand-written statement, `run` makes a transaction of what it awaits; both join that transaction.
 * No other code of the service touches TypeORM's DataSource, managers or query runners, or pg (the
 * spec names the exceptions: the migrations and what runs before the service). Hand-written SQL is
 * kept to what TypeORM cannot say (docs/architecture.md lists each place and why).
 *
 * The transaction is ambient: the idempotency interceptor opens one around a POST so that the
 * stored response and the write commit together; services join it through `run`, or start their
 * own when there is none, so nothing is ever half-written. Every `query` inside runs in it.
 */
@Injectable()
export class Transactions {
  private readonly ambient = new AsyncLocalStorage<Transaction>();
  private readonly preparedNames = new Map<string, string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /**
   * One statement, in the ambient transaction, else on a pooled connection, answering its rows
   * whatever its command (TypeORM's `query` answers an UPDATE or DELETE with `[rows, count]`).
   * `prepare`: the statement is named after it (the label, then a hash of the text), so each
   * connection parses and plans it once and then only binds and executes it, which TypeORM's
   * `query` cannot do; but not through a transaction-mode pooler (DATABASE_POOL_MODE), whose next
   * transaction may run on a server session that never saw the name. `locks`: the statement takes locks that the transaction holds until it ends,
   * which outside one would be released at once, so it throws instead of running (as TypeORM's
   * pessimistic locks do). A failed statement is a QueryFailedError, as TypeORM's would be.
   */
  async query<Row>(
    text: string,
    values: unknown[] = [],
    { prepare, locks = false }: { prepare?: string; locks?: boolean } = {},
  ): Promise<Row[]> {
    const transaction = this.ambient.getStore();
    if (locks && !transaction)
      throw new Error(`A statement that takes locks needs a transaction (Transactions.run): ${text}`);
    const name = prepare && this.preparedName(prepare, text);
    const send = (connection: PoolClient) =>
      new Promise<Row[]>((resolve, reject) => {
        // A Query made from the text, then named: pg copies a config object handed to it property
        // by property, through their descriptors (3 % of a read's node CPU in its profile).
        const query = new Query(text, values, (error: Error | undefined, result: QueryResult) =>
          error ? reject(new QueryFailedError(text, values, error)) : resolve(result.rows as Row[]),
        );
        try {
          connection.query(Object.assign(query, { name }));
        } catch (error) {
          reject(new QueryFailedError(text, values, error as Error));
        }
      });
    if (transaction) return send(transaction.connection);
    return this.onPooledConnection(send);
  }

  /**
   * `work` on a connection of the pool under TypeORM's postgres driver (its public `master`),
   * released when `work` settles, and dropped from the pool if it broke meanwhile. A statement
   * outside a transaction needs no query runner: TypeORM's would build a runner, an EntityManager
   * and a Broadcaster for that one statement (5 % of a read's node CPU in its profile). Not pg's
   * `pool.query`: it drops the connection on any failed statement, a unique violation included,
   * and with it the connection's prepared statements.
   */
  private async onPooledConnection<T>(work: (connection: PoolClient) => Promise<T>): Promise<T> {
    const connection = await ((this.dataSource.driver as PostgresDriver).master as Pool).connect();
    let broken: Error | undefined;
    // A checked-out connection that errs with no listener would throw out of the process.
    const onError = (error: Error) => (broken ??= error);
    connection.on('error', onError);
    try {
      return await work(connection);
    } finally {
      connection.off('error', onError);
      connection.release(broken);
    }
  }

  /**
   * TypeORM's repository of `entity`, bound to the ambient transaction when there is one. Its
   * pessimistic locks (`lock: { mode: 'pessimistic_write' }`) throw outside a transaction, as
   * `query`'s `locks` does.
   */
  repository<Entity extends ObjectLiteral>(entity: EntityTarget<Entity>): Repository<Entity> {
    const transaction = this.ambient.getStore();
    return (transaction ? transaction.runner.manager : this.dataSource.manager).getRepository(entity);
  }

  /** Whether a transaction of `run` is open around the caller. */
  get active(): boolean {
    return this.ambient.getStore() !== undefined;
  }

  /**
   * Runs `task` once the work of the ambient transaction has resolved, just before it commits, in
   * it (a failure rolls everything back): what must be written last, such as the change events
   * (ChangeEvents), which a transaction appends under a lock it should hold for as short as it can.
   * Tasks run in the order they were added, including those added by a task.
   */
  beforeCommit(task: () => Promise<void>): void {
    const transaction = this.ambient.getStore();
    if (!transaction) throw new Error('beforeCommit needs a transaction (Transactions.run)');
    transaction.beforeCommit.push(task);
  }

  /**
   * Runs `task` once what the caller has written is committed: after the ambient transaction's
   * commit, or at once when there is none (the caller's statements committed as they ran). Not
   * when the transaction rolls back. It must not throw: the commit is done.
   */
  afterCommit(task: () => void): void {
    const transaction = this.ambient.getStore();
    if (transaction) transaction.afterCommit.push(task);
    else task();
  }

  /** A value kept with the ambient transaction under `key`: `make`'s, made the first time it is asked for. */
  keep<T>(key: symbol, make: () => T): T {
    const transaction = this.ambient.getStore();
    if (!transaction) throw new Error('keep needs a transaction (Transactions.run)');
    if (!transaction.kept.has(key)) transaction.kept.set(key, make());
    return transaction.kept.get(key) as T;
  }

  /** What the ambient transaction keeps under `key`, if there is a transaction and it keeps something. */
  kept<T>(key: symbol): T | undefined {
    return this.ambient.getStore()?.kept.get(key) as T | undefined;
  }

  private preparedName(label: string, text: string): string | undefined {
    if (this.config.databasePoolMode === 'transaction') return undefined;
    let name = this.preparedNames.get(text);
    if (name === undefined && this.preparedNames.size < MAX_PREPARED_STATEMENTS) {
      name = `${label}:${createHash('sha1').update(text).digest('base64url').slice(0, 12)}`;
      this.preparedNames.set(text, name);
    }
    return name;
  }

  /**
   * Runs `work` in the ambient transaction, or in a new one that commits when `work` resolves.
   * Every statement inside, through `query` or `repository`, joins it.
   */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.ambient.getStore()) return work();
    return this.inNewTransaction(work);
  }

  /**
   * TypeORM's `transaction()`, except for a connection that breaks between two statements (the
   * server terminated the session, the socket closed): TypeORM then releases the query runner, and
   * the next statement fails with "already released", which says nothing of the cause. The
   * connection's own error is thrown instead, so that the client gets 503 database_unavailable.
   */
  private async inNewTransaction<T>(work: () => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    let lost: unknown;
    const onConnectionError = (error: unknown) => (lost ??= error);
    let connection: PoolClient | undefined;
    try {
      connection = await connectionOf(runner);
      connection.on('error', onConnectionError);
      await runner.startTransaction();
      const transaction: Transaction = { runner, connection, beforeCommit: [], afterCommit: [], kept: new Map() };
      const result = await this.ambient.run(transaction, async () => {
        const value = await work();
        for (let index = 0; index < transaction.beforeCommit.length; index++) await transaction.beforeCommit[index]();
        return value;
      });
      await runner.commitTransaction();
      for (const task of transaction.afterCommit) task();
      return result;
    } catch (error) {
      if (!runner.isReleased) await runner.rollbackTransaction().catch(() => undefined);
      throw lost ?? error;
    } finally {
      connection?.off('error', onConnectionError);
      await runner.release();
    }
  }
}

/**
 * The pg connection of a query runner, through TypeORM's public `QueryRunner.connect()`, which
 * answers "the obtained database connection" (typed `any`): for the postgres driver, the pool's
 * PoolClient. TypeORM has no public way to send a named statement, so this is where the service
 * takes the driver's client in a transaction (outside one: onPooledConnection).
 */
async function connectionOf(runner: QueryRunner): Promise<PoolClient> {
  return (await runner.connect()) as PoolClient;
}

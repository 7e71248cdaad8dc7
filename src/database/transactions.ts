import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { Injectable } from '@nestjs/common';
import type { Pool, PoolClient, QueryConfig } from 'pg';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * How many distinct statement texts get a prepared name. Each pooled connection keeps a plan per
 * name for its life, so the names must stay few: statements whose text depends on what a caller
 * sends (filter combinations) run unnamed once this many have been named.
 */
const MAX_PREPARED_STATEMENTS = 256;

/**
 * The ambient transaction of a request. The idempotency interceptor opens one around a POST so that
 * the stored response and the write commit together; services join it through `run`, or start their
 * own when there is none, so nothing is ever half-written.
 */
@Injectable()
export class Transactions {
  private readonly ambient = new AsyncLocalStorage<EntityManager>();
  private readonly preparedNames = new Map<string, string>();

  constructor(private readonly dataSource: DataSource) {}

  /** The ambient transaction's manager, else the pool's. */
  get manager(): EntityManager {
    return this.ambient.getStore() ?? this.dataSource.manager;
  }

  /**
   * One statement on the ambient transaction's connection, else on any pooled one, straight through
   * `pg`. `prepare`: the statement is named after it (the label, then a hash of the text), so each
   * connection parses and plans it once and then only binds and executes it (TypeORM's query runner
   * cannot name a statement). Rows are returned
   * as `pg` gives them, for every command; a failure is a QueryFailedError as TypeORM's would be.
   */
  async query<Row>(text: string, values: unknown[], { prepare }: { prepare?: string } = {}): Promise<Row[]> {
    const statement: QueryConfig = { text, values, name: prepare && this.preparedName(prepare, text) };
    const runner = this.ambient.getStore()?.queryRunner;
    try {
      const client: Pool | PoolClient = runner
        ? (runner as unknown as { databaseConnection: PoolClient }).databaseConnection
        : (this.dataSource.driver as PostgresDriver).master as Pool;
      return (await client.query(statement)).rows as Row[];
    } catch (error) {
      throw new QueryFailedError(text, values, error as Error);
    }
  }

  private preparedName(label: string, text: string): string | undefined {
    let name = this.preparedNames.get(text);
    if (name === undefined && this.preparedNames.size < MAX_PREPARED_STATEMENTS) {
      name = `${label}:${createHash('sha1').update(text).digest('base64url').slice(0, 12)}`;
      this.preparedNames.set(text, name);
    }
    return name;
  }

  /** Runs `work` in the ambient transaction, or in a new one that commits when `work` resolves. */
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const current = this.ambient.getStore();
    if (current) return work(current);
    return this.inNewTransaction(work);
  }

  /**
   * TypeORM's `transaction()`, except for a connection that breaks between two statements (the
   * server terminated the session, the socket closed): TypeORM then releases the query runner, and
   * the next statement fails with "already released", which says nothing of the cause. The
   * connection's own error is thrown instead, so that the client gets 503 database_unavailable.
   */
  private async inNewTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    let lost: unknown;
    const onConnectionError = (error: unknown) => (lost ??= error);
    let connection: EventEmitter | undefined;
    try {
      connection = (await runner.connect()) as EventEmitter;
      connection.on('error', onConnectionError);
      await runner.startTransaction();
      const result = await this.ambient.run(runner.manager, () => work(runner.manager));
      await runner.commitTransaction();
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

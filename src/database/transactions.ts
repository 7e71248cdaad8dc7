import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventEmitter } from 'node:events';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

/**
 * The ambient transaction of a request. The idempotency interceptor opens one around a POST so that
 * the stored response and the write commit together; services join it through `run`, or start their
 * own when there is none, so nothing is ever half-written.
 */
@Injectable()
export class Transactions {
  private readonly ambient = new AsyncLocalStorage<EntityManager>();

  constructor(private readonly dataSource: DataSource) {}

  /** The ambient transaction's manager, else the pool's. */
  get manager(): EntityManager {
    return this.ambient.getStore() ?? this.dataSource.manager;
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

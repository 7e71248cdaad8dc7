import { AsyncLocalStorage } from 'node:async_hooks';
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
    return this.dataSource.transaction((manager) => this.ambient.run(manager, () => work(manager)));
  }
}

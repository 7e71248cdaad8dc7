import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, SetMetadata } from '@nestjs/common';
import { Transactions } from '../../database/transactions';

export const PREPARES_OUTSIDE_TRANSACTION = 'idempotency:prepares-outside-transaction';

/**
 * On a write route whose operation calls storage (or anything slow) before it writes: with an
 * Idempotency-Key too, the request runs outside any transaction, so that those calls hold none of
 * the pooled connections. Its operation then writes once, through PreparedWrites.commit, and
 * returns what that returns: the response stored with the write (docs/api.md §5).
 */
export const PreparesOutsideTransaction = (): MethodDecorator => SetMetadata(PREPARES_OUTSIDE_TRANSACTION, true);

type Commit = <T>(work: () => Promise<T>) => Promise<T>;

/** The write of an operation on a route marked PreparesOutsideTransaction. */
@Injectable()
export class PreparedWrites {
  private readonly commits = new AsyncLocalStorage<Commit>();

  constructor(private readonly transactions: Transactions) {}

  /**
   * Runs `work` in one transaction: with an Idempotency-Key, the one in which the request's
   * response (what `work` returns) is stored; then, should a duplicate of the request have stored
   * one first, `work` does not run and that response is returned instead.
   */
  commit<T>(work: () => Promise<T>): Promise<T> {
    const commit = this.commits.getStore();
    return commit ? commit(work) : this.transactions.run(work);
  }

  /** Runs a request's handler so that its `commit` is `commit` (the idempotency interceptor's). */
  runWith<T>(commit: Commit, handler: () => Promise<T>): Promise<T> {
    return this.commits.run(commit, handler);
  }
}

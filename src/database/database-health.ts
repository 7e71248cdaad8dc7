import { Injectable } from '@nestjs/common';
import { Transactions } from './transactions';

/** Readiness: whether a pooled connection can run a statement now. */
@Injectable()
export class DatabaseHealth {
  constructor(private readonly transactions: Transactions) {}

  /** Rejects when the database does not answer. */
  async ping(): Promise<void> {
    await this.transactions.query('SELECT 1');
  }
}

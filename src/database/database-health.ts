import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Readiness: whether a pooled connection can run a statement now. */
@Injectable()
export class DatabaseHealth {
  constructor(private readonly dataSource: DataSource) {}

  /** Rejects when the database does not answer. */
  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}

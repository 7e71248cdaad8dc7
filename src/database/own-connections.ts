import { Injectable, Logger } from '@nestjs/common';
import { Client, Pool, type PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import { applicationName } from './application-name';

/** A pool outside TypeORM's, as OwnConnections makes it. */
export type OwnPool = Pool;

/**
 * Connections outside TypeORM's pool, with its settings (its connect timeout, the server options
 * of its sessions): for a session that must be of its own (SessionLocks), or a pool handed to a
 * library (the webhook queue's). A pool made here always handles its connections' errors: pg
 * emits an idle connection's error on the pool, and a pool without a listener for it turns a
 * connection the server closes (a restart, a dropped database) into an unhandled error that ends
 * the process. Whoever makes a pool ends it, and awaits that.
 */
@Injectable()
export class OwnConnections {
  private readonly logger = new Logger('OwnConnections');

  constructor(private readonly dataSource: DataSource) {}

  /** A client not yet connected, named after its `purpose`: the caller listens for its errors, connects and ends it. */
  client(purpose: string): Client {
    return new Client(this.settings(purpose));
  }

  /** A pool of at most `max` connections, named after its `purpose` (also in the log of a connection it loses). */
  pool(purpose: string, max: number): OwnPool {
    const pool = new Pool({ ...this.settings(purpose), max });
    // pg has already dropped an idle connection that failed from the pool.
    pool.on('error', (error) => this.logger.warn(`${purpose}: an idle connection closed: ${error.message}`));
    // A checked-out connection's error also rejects its query, which its caller handles.
    pool.on('connect', (client: PoolClient) => client.on('error', () => undefined));
    return pool;
  }

  private settings(purpose: string) {
    const { url, extra } = this.dataSource.options as PostgresDataSourceOptions;
    return { connectionString: url, ...(extra as object | undefined), application_name: applicationName(purpose) };
  }
}

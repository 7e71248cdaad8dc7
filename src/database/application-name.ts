/**
 * How the service's connections name themselves to PostgreSQL (`application_name`, shown in
 * pg_stat_activity): the process and what the connection is for, so that an operator sees which
 * process holds which connections, and which of them are the job queue's.
 */
export function applicationName(purpose: string): string {
  return `records[${process.pid}] ${purpose}`;
}

/**
 * The name of connections made through a transaction-mode pooler, the same in every process: there
 * a server session serves the transactions of every process in turn, and PgBouncer sets a client's
 * application_name on the session before each transaction whose client's differs from the last, one
 * more round trip each time. The pooler's SHOW CLIENTS tells its clients apart by address.
 */
export function pooledApplicationName(purpose: string): string {
  return `records ${purpose}`;
}

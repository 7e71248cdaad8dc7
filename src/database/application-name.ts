/**
 * How the service's connections name themselves to PostgreSQL (`application_name`, shown in
 * pg_stat_activity): the process and what the connection is for, so that an operator sees which
 * process holds which connections, and which of them are the job queue's.
 */
export function applicationName(purpose: string): string {
  return `records[${process.pid}] ${purpose}`;
}

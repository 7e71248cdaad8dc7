import { isIP } from 'node:net';
import * as path from 'node:path';

/**
 * Typed, validated configuration read once from the environment (the README lists every variable).
 * Provided to Nest as the `AppConfig` class so tests can override it with `overrideProvider`.
 */
export class AppConfig {
  readonly nodeEnv: string;
  /** What this process does: `api` serves the HTTP API, `worker` runs the job queue and the periodic work. */
  readonly roles: ProcessRoles;
  readonly port: number;
  /** The Prometheus metrics' own port; unset → no metrics are served. */
  readonly metricsPort: number | undefined;
  /** Unset means: start an embedded PostgreSQL in `dataDir`. May be a transaction-mode pooler (see databasePoolMode). */
  readonly databaseUrl: string | undefined;
  /**
   * Where the work that needs a session of its own connects (migrations, SessionLocks, the job
   * queue, which LISTENs): PostgreSQL itself, not a transaction-mode pooler. Unset → databaseUrl.
   */
  readonly databaseDirectUrl: string | undefined;
  /** What databaseUrl leads to: `session` (PostgreSQL, a session pooler) or `transaction` (a transaction-mode pooler). */
  readonly databasePoolMode: DatabasePoolMode;
  readonly dataDir: string;
  readonly embeddedPostgresPort: number;
  readonly redisUrl: string | undefined;
  readonly adminToken: string | undefined;
  readonly publicUrl: string;
  readonly publicAppUrl: string | undefined;
  readonly rateLimits: { read: number; write: number; search: number; batchItems: number };
  readonly authFailureLimit: { perMinute: number };
  readonly uploadTtlSeconds: number;
  readonly downloadUrlTtlSeconds: number;
  /** Key of the local upload and download URL signatures; unset → derived (see resolveFileUrlSecret). */
  readonly fileUrlSecret: string | undefined;
  /** S3-compatible file storage; unset → files under `dataDir/files`. */
  readonly s3: S3Settings | undefined;
  /** How often expired and cancelled uploads lose their bytes, in whole minutes as seconds; 0 disables the sweep. */
  readonly fileSweepIntervalSeconds: number;
  /** How long change events are kept before they are removed. */
  readonly eventRetentionDays: number;
  /** How many feed reads may wait for events (`wait`) at once in one process; past it, 503. */
  readonly eventsMaxWaiters: number;
  readonly webhooks: WebhookSettings;
  readonly logLevel: string;
  readonly trustProxy: boolean;
  /** On SIGTERM, how long requests in flight may take before their connections are closed. */
  readonly shutdownTimeoutSeconds: number;

  constructor(values: Omit<AppConfig, 'isProduction'>) {
    Object.assign(this, values);
  }

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }
}

export interface S3Settings {
  bucket: string;
  /** Unset → AWS's own endpoint for the region. */
  endpoint: string | undefined;
  region: string;
  /** Both unset → the AWS SDK's default credential chain. */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
}

/**
 * `transaction`: each transaction of the pool may run on another server session (PgBouncer's
 * `pool_mode = transaction`), so the service sends no named prepared statement and no session
 * setting through it.
 */
export type DatabasePoolMode = 'session' | 'transaction';

export interface ProcessRoles {
  api: boolean;
  worker: boolean;
}

export interface WebhookSettings {
  /** Seconds before each attempt of a delivery, the first included; each gets ±10 % jitter. */
  retrySchedule: number[];
  /** An endpoint whose every attempt has failed for this long is disabled. */
  disableAfterHours: number;
  /** Lets endpoint URLs reach loopback, private, link-local, multicast and unspecified addresses (self-hosting, tests). */
  allowPrivateNetworks: boolean;
  /** The only networks a delivery may connect to (on top of allowPrivateNetworks); unset → any. */
  allowedNetworks: Network[] | undefined;
  /** How long the delivery log keeps an attempt that was made. */
  deliveryRetentionDays: number;
}

/** An IPv4 or IPv6 network: its address and prefix length, as `net.BlockList.addSubnet` takes them. */
export interface Network {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

export class ConfigError extends Error {}

const DEFAULT_RETRY_SCHEDULE = '0,5,300,1800,7200,18000,36000,36000';

/** Comma-separated whole seconds, 1 to 50 of them, each at most a week. */
function retrySchedule(env: NodeJS.ProcessEnv): number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE || DEFAULT_RETRY_SCHEDULE;
  const delays = raw.split(',').map((part) => (/^\s*\d{1,7}\s*$/.test(part) ? Number(part) : NaN));
  if (delays.length > 50 || delays.some((delay) => !(delay <= 7 * 24 * 3600))) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE must be 1 to 50 comma-separated delays in whole seconds (each at most a week), got "${raw}"`,
    );
  }
  return delays;
}

/**
 * Comma-separated networks in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`), IPv4 or IPv6; a bare
 * address is a network of that address alone. Unset or empty → undefined.
 */
function networks(env: NodeJS.ProcessEnv, name: string): Network[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw.split(',').map((entry) => {
    const [address, prefix, ...rest] = entry.trim().split('/');
    const version = isIP(address);
    const bits = version === 4 ? 32 : 128;
    const length = prefix === undefined ? bits : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (version === 0 || rest.length > 0 || !(length <= bits)) {
      throw new ConfigError(
        `${name} must be comma-separated networks in CIDR notation (like 10.0.0.0/8,2001:db8::/32), got "${entry.trim()}" in "${raw}"`,
      );
    }
    return { address, prefix: length, family: version === 4 ? 'ipv4' : 'ipv6' };
  });
}

const ROLE_NAMES = ['api', 'worker'] as const;

/** Comma-separated `api` and `worker`; unset → both, one process doing everything. */
function roles(env: NodeJS.ProcessEnv): ProcessRoles {
  const raw = env.ROLES;
  if (raw === undefined || raw === '') return { api: true, worker: true };
  const names = raw.split(',').map((part) => part.trim());
  if (names.some((name) => !(ROLE_NAMES as readonly string[]).includes(name))) {
    throw new ConfigError(`ROLES must be api, worker or both (comma-separated), got "${raw}"`);
  }
  return { api: names.includes('api'), worker: names.includes('worker') };
}

/**
 * Seconds, but a whole number of minutes: the sweep is a job of the queue's schedule, which runs
 * to the minute. 0 turns it off.
 */
function sweepInterval(env: NodeJS.ProcessEnv): number {
  const seconds = integer(env, 'FILE_SWEEP_INTERVAL_SECONDS', 300, 0, 24 * 3600);
  if (seconds % 60 !== 0) {
    throw new ConfigError(
      `FILE_SWEEP_INTERVAL_SECONDS must be 0 or a whole number of minutes (60, 120, …, 86400), got "${env.FILE_SWEEP_INTERVAL_SECONDS}"`,
    );
  }
  return seconds;
}

const POOL_MODES: readonly DatabasePoolMode[] = ['session', 'transaction'];

/**
 * DATABASE_URL, DATABASE_DIRECT_URL and DATABASE_POOL_MODE together: a direct URL is one beside
 * DATABASE_URL (the embedded PostgreSQL has no pooler), and a transaction-mode pool needs one, since
 * session locks and LISTEN through it would land on whichever session runs the next transaction.
 */
function database(env: NodeJS.ProcessEnv): Pick<AppConfig, 'databaseUrl' | 'databaseDirectUrl' | 'databasePoolMode'> {
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'], true);
  const databaseDirectUrl = url(env, 'DATABASE_DIRECT_URL', ['postgres:', 'postgresql:'], true);
  const mode = env.DATABASE_POOL_MODE || 'session';
  if (!(POOL_MODES as readonly string[]).includes(mode)) {
    throw new ConfigError(`DATABASE_POOL_MODE must be session or transaction, got "${mode}"`);
  }
  if (databaseDirectUrl !== undefined && databaseUrl === undefined) {
    throw new ConfigError(
      'DATABASE_DIRECT_URL is set but DATABASE_URL is not; set DATABASE_URL too (the embedded PostgreSQL needs neither)',
    );
  }
  if (mode === 'transaction' && databaseDirectUrl === undefined) {
    throw new ConfigError(
      'DATABASE_POOL_MODE=transaction needs DATABASE_DIRECT_URL: migrations, session locks and the job queue need sessions of their own, which a transaction-mode pooler does not keep',
    );
  }
  return { databaseUrl, databaseDirectUrl, databasePoolMode: mode as DatabasePoolMode };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer<Fallback extends number | undefined>(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: Fallback,
  min: number,
  max: number,
): number | Fallback {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** `credentials`: the URL may hold a password, so a refusal does not repeat it. */
function url(env: NodeJS.ProcessEnv, name: string, protocols: string[], credentials = false): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(
      `${name} must be a URL, got ${credentials ? 'a value that is not one (not shown)' : `"${raw}"`}`,
    );
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw.replace(/\/+$/, '');
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function s3Settings(env: NodeJS.ProcessEnv): S3Settings | undefined {
  const bucket = env.S3_BUCKET || undefined;
  const related = ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE'];
  if (!bucket) {
    const stray = related.find((name) => env[name]);
    if (stray) throw new ConfigError(`${stray} is set but S3_BUCKET is not; set S3_BUCKET to store files in S3`);
    return undefined;
  }
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  }
  return {
    bucket,
    endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    region: env.S3_REGION || 'us-east-1',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: flag(env, 'S3_FORCE_PATH_STYLE'),
  };
}

/** Reads and validates the environment; throws ConfigError with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const metricsPort = integer(env, 'METRICS_PORT', undefined, 0, 65535);
  // 0 asks the system for a free port, for each listener its own.
  if (metricsPort === port && port !== 0) {
    throw new ConfigError(`METRICS_PORT must differ from PORT (${port}): the metrics have a port of their own`);
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');
  }
  const fileUrlSecret = env.FILE_URL_SECRET || undefined;
  if (fileUrlSecret !== undefined && fileUrlSecret.length < 32) {
    throw new ConfigError('FILE_URL_SECRET must be at least 32 characters');
  }
  const eventRetentionDays = integer(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650);
  return new AppConfig({
    nodeEnv: env.NODE_ENV || 'development',
    roles: roles(env),
    port,
    metricsPort,
    ...database(env),
    dataDir: path.resolve(env.DATA_DIR || './.data'),
    embeddedPostgresPort: integer(env, 'EMBEDDED_POSTGRES_PORT', 54329, 1, 65535),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:'], true),
    adminToken,
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`,
    publicAppUrl: url(env, 'PUBLIC_APP_URL', ['http:', 'https:']),
    rateLimits: {
      read: integer(env, 'RATE_LIMIT_READ', 25, 1, 1_000_000),
      write: integer(env, 'RATE_LIMIT_WRITE', 25, 1, 1_000_000),
      search: integer(env, 'RATE_LIMIT_SEARCH', 25, 1, 1_000_000),
      batchItems: integer(env, 'RATE_LIMIT_BATCH_ITEMS', 1000, 1, 1_000_000),
    },
    authFailureLimit: { perMinute: integer(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE', 30, 1, 1_000_000) },
    uploadTtlSeconds: integer(env, 'UPLOAD_TTL_SECONDS', 3600, 1, 7 * 24 * 3600),
    downloadUrlTtlSeconds: integer(env, 'DOWNLOAD_URL_TTL_SECONDS', 900, 1, 7 * 24 * 3600),
    fileUrlSecret,
    s3: s3Settings(env),
    fileSweepIntervalSeconds: sweepInterval(env),
    eventRetentionDays,
    eventsMaxWaiters: integer(env, 'EVENTS_MAX_WAITERS', 1000, 0, 1_000_000),
    webhooks: {
      retrySchedule: retrySchedule(env),
      disableAfterHours: integer(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 24 * 365),
      allowPrivateNetworks: flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
      allowedNetworks: networks(env, 'WEBHOOK_ALLOWED_NETWORKS'),
      deliveryRetentionDays: integer(env, 'WEBHOOK_DELIVERY_RETENTION_DAYS', eventRetentionDays, 1, 3650),
    },
    logLevel,
    trustProxy: flag(env, 'TRUST_PROXY'),
    shutdownTimeoutSeconds: integer(env, 'SHUTDOWN_TIMEOUT_SECONDS', 10, 0, 600),
  });
}

import * as path from 'node:path';
import { ConfigError, loadConfig } from './app-config';

function configError(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error(`${JSON.stringify(env)} was accepted`);
}

describe('loadConfig', () => {
  it('has the documented defaults (README, environment table)', () => {
    const config = loadConfig({});
    expect({ ...config }).toEqual({
      nodeEnv: 'development',
      roles: { api: true, worker: true },
      port: 3000,
      metricsPort: undefined,
      databaseUrl: undefined,
      databaseDirectUrl: undefined,
      databasePoolMode: 'session',
      dataDir: path.resolve('./.data'),
      embeddedPostgresPort: 54329,
      redisUrl: undefined,
      adminToken: undefined,
      publicUrl: 'http://localhost:3000',
      publicAppUrl: undefined,
      rateLimits: { read: 25, write: 25, search: 25, batchItems: 1000 },
      authFailureLimit: { perMinute: 30 },
      uploadTtlSeconds: 3600,
      downloadUrlTtlSeconds: 900,
      logLevel: 'info',
      trustProxy: false,
      fileUrlSecret: undefined,
      s3: undefined,
      fileSweepIntervalSeconds: 300,
      eventRetentionDays: 30,
      eventsMaxWaiters: 1000,
      webhooks: {
        retrySchedule: [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
        disableAfterHours: 120,
        allowPrivateNetworks: false,
        allowedNetworks: undefined,
        deliveryRetentionDays: 30,
      },
      shutdownTimeoutSeconds: 10,
    });
    expect(config.isProduction).toBe(false);
  });

  it('treats empty variables as unset', () => {
    const empty = loadConfig({
      ROLES: '',
      WEBHOOK_DELIVERY_RETENTION_DAYS: '',
      FILE_SWEEP_INTERVAL_SECONDS: '',
      PORT: '',
      METRICS_PORT: '',
      DATABASE_URL: '',
      DATABASE_DIRECT_URL: '',
      DATABASE_POOL_MODE: '',
      REDIS_URL: '',
      ADMIN_TOKEN: '',
      LOG_LEVEL: '',
      RATE_LIMIT_READ: '',
    });
    expect({ ...empty }).toEqual({ ...loadConfig({}) });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      ROLES: 'worker',
      PORT: '8080',
      METRICS_PORT: '9464',
      DATABASE_URL: 'postgres://u:p@db:5432/records',
      DATABASE_DIRECT_URL: 'postgres://u:p@db-primary:5432/records',
      DATABASE_POOL_MODE: 'transaction',
      DATA_DIR: '/var/lib/records',
      EMBEDDED_POSTGRES_PORT: '6000',
      REDIS_URL: 'redis://cache:6379/1',
      ADMIN_TOKEN: '0123456789abcdef',
      PUBLIC_URL: 'https://api.example.com/',
      PUBLIC_APP_URL: 'https://app.example.com//',
      RATE_LIMIT_READ: '10',
      RATE_LIMIT_WRITE: '5',
      RATE_LIMIT_SEARCH: '2',
      AUTH_FAILURE_LIMIT_PER_MINUTE: '3',
      UPLOAD_TTL_SECONDS: '60',
      DOWNLOAD_URL_TTL_SECONDS: '30',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'true',
      FILE_URL_SECRET: 'f'.repeat(32),
      S3_BUCKET: 'records',
      S3_ENDPOINT: 'https://s3.example.com/',
      S3_REGION: 'eu-west-3',
      S3_ACCESS_KEY_ID: 'AKIA',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'true',
      FILE_SWEEP_INTERVAL_SECONDS: '0',
      EVENT_RETENTION_DAYS: '7',
      EVENTS_MAX_WAITERS: '50',
      WEBHOOK_DELIVERY_RETENTION_DAYS: '2',
      WEBHOOK_RETRY_SCHEDULE: '0, 1,2',
      WEBHOOK_DISABLE_AFTER_HOURS: '3',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8, 2001:db8::/32',
      SHUTDOWN_TIMEOUT_SECONDS: '25',
    });
    expect({ ...config }).toEqual({
      nodeEnv: 'production',
      roles: { api: false, worker: true },
      port: 8080,
      metricsPort: 9464,
      databaseUrl: 'postgres://u:p@db:5432/records',
      databaseDirectUrl: 'postgres://u:p@db-primary:5432/records',
      databasePoolMode: 'transaction',
      dataDir: '/var/lib/records',
      embeddedPostgresPort: 6000,
      redisUrl: 'redis://cache:6379/1',
      adminToken: '0123456789abcdef',
      publicUrl: 'https://api.example.com',
      publicAppUrl: 'https://app.example.com',
      rateLimits: { read: 10, write: 5, search: 2, batchItems: 1000 },
      authFailureLimit: { perMinute: 3 },
      uploadTtlSeconds: 60,
      downloadUrlTtlSeconds: 30,
      logLevel: 'warn',
      trustProxy: true,
      fileUrlSecret: 'f'.repeat(32),
      s3: {
        bucket: 'records',
        endpoint: 'https://s3.example.com',
        region: 'eu-west-3',
        credentials: { accessKeyId: 'AKIA', secretAccessKey: 'secret' },
        forcePathStyle: true,
      },
      fileSweepIntervalSeconds: 0,
      eventRetentionDays: 7,
      eventsMaxWaiters: 50,
      webhooks: {
        retrySchedule: [0, 1, 2],
        disableAfterHours: 3,
        allowPrivateNetworks: true,
        allowedNetworks: [
          { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
          { address: '2001:db8::', prefix: 32, family: 'ipv6' },
        ],
        deliveryRetentionDays: 2,
      },
      shutdownTimeoutSeconds: 25,
    });
    expect(config.isProduction).toBe(true);
  });

  it('stores files in S3 with S3_BUCKET alone: AWS endpoint, us-east-1 and the default credential chain', () => {
    expect(loadConfig({ S3_BUCKET: 'records' }).s3).toEqual({
      bucket: 'records',
      endpoint: undefined,
      region: 'us-east-1',
      credentials: undefined,
      forcePathStyle: false,
    });
  });

  it('reads WEBHOOK_ALLOWED_NETWORKS: a bare address is a network of that address alone, blank is unset', () => {
    expect(loadConfig({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128' }).webhooks.allowedNetworks).toEqual([
      { address: '127.0.0.0', prefix: 8, family: 'ipv4' },
      { address: '::1', prefix: 128, family: 'ipv6' },
    ]);
    expect(
      loadConfig({ WEBHOOK_ALLOWED_NETWORKS: '192.0.2.7,::ffff:192.0.2.0/120,0.0.0.0/0' }).webhooks.allowedNetworks,
    ).toEqual([
      { address: '192.0.2.7', prefix: 32, family: 'ipv4' },
      { address: '::ffff:192.0.2.0', prefix: 120, family: 'ipv6' },
      { address: '0.0.0.0', prefix: 0, family: 'ipv4' },
    ]);
    expect(loadConfig({ WEBHOOK_ALLOWED_NETWORKS: ' ' }).webhooks.allowedNetworks).toBeUndefined();
  });

  it.each([
    ['api', { api: true, worker: false }],
    ['worker', { api: false, worker: true }],
    ['api,worker', { api: true, worker: true }],
    [' worker , api ', { api: true, worker: true }],
  ])('reads ROLES=%p as the roles it names', (value, expected) => {
    expect(loadConfig({ ROLES: value }).roles).toEqual(expected);
  });

  it('keeps the delivery log as long as the events unless told otherwise', () => {
    expect(loadConfig({ EVENT_RETENTION_DAYS: '9' }).webhooks.deliveryRetentionDays).toBe(9);
    expect(
      loadConfig({ EVENT_RETENTION_DAYS: '9', WEBHOOK_DELIVERY_RETENTION_DAYS: '3' }).webhooks.deliveryRetentionDays,
    ).toBe(3);
  });

  it('lets PORT and METRICS_PORT both be 0: the system gives each listener a free port of its own', () => {
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' })).toMatchObject({ port: 0, metricsPort: 0 });
  });

  it('derives PUBLIC_URL from PORT', () => {
    expect(loadConfig({ PORT: '4000' }).publicUrl).toBe('http://localhost:4000');
  });

  it.each([
    [{ TRUST_PROXY: '1' }, true],
    [{ TRUST_PROXY: 'TRUE' }, true],
    [{ TRUST_PROXY: '0' }, false],
    [{ TRUST_PROXY: 'false' }, false],
  ])('reads the flag %p', (env, expected) => {
    expect(loadConfig(env).trustProxy).toBe(expected);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer between 0 and 65535, got "abc"'],
    [{ PORT: '65536' }, 'PORT must be an integer between 0 and 65535, got "65536"'],
    [{ PORT: '80.5' }, 'PORT must be an integer between 0 and 65535, got "80.5"'],
    [{ METRICS_PORT: 'prometheus' }, 'METRICS_PORT must be an integer between 0 and 65535, got "prometheus"'],
    [{ METRICS_PORT: '-1' }, 'METRICS_PORT must be an integer between 0 and 65535, got "-1"'],
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT must differ from PORT (3000): the metrics have a port of their own'],
    [
      { PORT: '8080', METRICS_PORT: '8080' },
      'METRICS_PORT must differ from PORT (8080): the metrics have a port of their own',
    ],
    [{ RATE_LIMIT_READ: '0' }, 'RATE_LIMIT_READ must be an integer between 1 and 1000000, got "0"'],
    [{ RATE_LIMIT_WRITE: '-5' }, 'RATE_LIMIT_WRITE must be an integer between 1 and 1000000, got "-5"'],
    [{ RATE_LIMIT_SEARCH: 'many' }, 'RATE_LIMIT_SEARCH must be an integer between 1 and 1000000, got "many"'],
    [
      { AUTH_FAILURE_LIMIT_PER_MINUTE: '0' },
      'AUTH_FAILURE_LIMIT_PER_MINUTE must be an integer between 1 and 1000000, got "0"',
    ],
    [{ UPLOAD_TTL_SECONDS: '604801' }, 'UPLOAD_TTL_SECONDS must be an integer between 1 and 604800, got "604801"'],
    [
      { LOG_LEVEL: 'verbose' },
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN must be at least 16 characters'],
    [{ DATABASE_URL: 'postgres//u:pa ss@db' }, 'DATABASE_URL must be a URL, got a value that is not one (not shown)'],
    [
      { DATABASE_URL: 'postgres://db/records', DATABASE_DIRECT_URL: 'postgres//u:pa ss@db' },
      'DATABASE_DIRECT_URL must be a URL, got a value that is not one (not shown)',
    ],
    [
      { DATABASE_URL: 'postgres://db/records', DATABASE_DIRECT_URL: 'http://db:5432' },
      'DATABASE_DIRECT_URL must use postgres: or postgresql:, got "http:"',
    ],
    [
      { DATABASE_DIRECT_URL: 'postgres://db/records' },
      'DATABASE_DIRECT_URL is set but DATABASE_URL is not; set DATABASE_URL too (the embedded PostgreSQL needs neither)',
    ],
    [
      { DATABASE_URL: 'postgres://db/records', DATABASE_POOL_MODE: 'statement' },
      'DATABASE_POOL_MODE must be session or transaction, got "statement"',
    ],
    [
      { DATABASE_URL: 'postgres://db/records', DATABASE_POOL_MODE: 'Transaction' },
      'DATABASE_POOL_MODE must be session or transaction, got "Transaction"',
    ],
    [
      { DATABASE_URL: 'postgres://pooler/records', DATABASE_POOL_MODE: 'transaction' },
      'DATABASE_POOL_MODE=transaction needs DATABASE_DIRECT_URL: migrations, session locks and the job queue need sessions of their own, which a transaction-mode pooler does not keep',
    ],
    [{ REDIS_URL: 'redis//:pa ss@cache' }, 'REDIS_URL must be a URL, got a value that is not one (not shown)'],
    [{ DATABASE_URL: 'mysql://db/records' }, 'DATABASE_URL must use postgres: or postgresql:, got "mysql:"'],
    [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL must use redis: or rediss:, got "http:"'],
    [{ PUBLIC_URL: 'ftp://files' }, 'PUBLIC_URL must use http: or https:, got "ftp:"'],
    [{ PUBLIC_APP_URL: 'app.example.com' }, 'PUBLIC_APP_URL must be a URL, got "app.example.com"'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY must be true or false, got "yes"'],
    [{ FILE_URL_SECRET: 'short' }, 'FILE_URL_SECRET must be at least 32 characters'],
    [
      { FILE_SWEEP_INTERVAL_SECONDS: '-1' },
      'FILE_SWEEP_INTERVAL_SECONDS must be an integer between 0 and 86400, got "-1"',
    ],
    [
      { FILE_SWEEP_INTERVAL_SECONDS: '90' },
      'FILE_SWEEP_INTERVAL_SECONDS must be 0 or a whole number of minutes (60, 120, …, 86400), got "90"',
    ],
    [{ ROLES: 'web' }, 'ROLES must be api, worker or both (comma-separated), got "web"'],
    [{ ROLES: 'api,' }, 'ROLES must be api, worker or both (comma-separated), got "api,"'],
    [{ ROLES: 'API' }, 'ROLES must be api, worker or both (comma-separated), got "API"'],
    [
      { WEBHOOK_DELIVERY_RETENTION_DAYS: '0' },
      'WEBHOOK_DELIVERY_RETENTION_DAYS must be an integer between 1 and 3650, got "0"',
    ],
    [{ SHUTDOWN_TIMEOUT_SECONDS: '601' }, 'SHUTDOWN_TIMEOUT_SECONDS must be an integer between 0 and 600, got "601"'],
    [{ S3_ENDPOINT: 'http://s3' }, 'S3_ENDPOINT is set but S3_BUCKET is not; set S3_BUCKET to store files in S3'],
    [{ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'AKIA' }, 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together'],
    [{ S3_BUCKET: 'b', S3_ENDPOINT: 's3.example.com' }, 'S3_ENDPOINT must be a URL, got "s3.example.com"'],
    [{ S3_BUCKET: 'b', S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE must be true or false, got "yes"'],
    [
      { WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33' },
      'WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks in CIDR notation (like 10.0.0.0/8,2001:db8::/32), got "10.0.0.0/33" in "10.0.0.0/33"',
    ],
    [
      { WEBHOOK_ALLOWED_NETWORKS: '::1/129' },
      'WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks in CIDR notation (like 10.0.0.0/8,2001:db8::/32), got "::1/129" in "::1/129"',
    ],
    [
      { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,' },
      'WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks in CIDR notation (like 10.0.0.0/8,2001:db8::/32), got "" in "127.0.0.0/8,"',
    ],
    [
      { WEBHOOK_ALLOWED_NETWORKS: 'localhost' },
      'WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks in CIDR notation (like 10.0.0.0/8,2001:db8::/32), got "localhost" in "localhost"',
    ],
    [
      { WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8/8' },
      'WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks in CIDR notation (like 10.0.0.0/8,2001:db8::/32), got "10.0.0.0/8/8" in "10.0.0.0/8/8"',
    ],
    [
      { WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/' },
      'WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks in CIDR notation (like 10.0.0.0/8,2001:db8::/32), got "10.0.0.0/" in "10.0.0.0/"',
    ],
    [
      { WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/-1' },
      'WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks in CIDR notation (like 10.0.0.0/8,2001:db8::/32), got "10.0.0.0/-1" in "10.0.0.0/-1"',
    ],
    [
      { WEBHOOK_ALLOWED_NETWORKS: '10.0.0/8' },
      'WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks in CIDR notation (like 10.0.0.0/8,2001:db8::/32), got "10.0.0/8" in "10.0.0/8"',
    ],
    [{ EVENTS_MAX_WAITERS: '-1' }, 'EVENTS_MAX_WAITERS must be an integer between 0 and 1000000, got "-1"'],
  ])('refuses %p with a ConfigError naming the variable', (env, message) => {
    expect(configError(env)).toBe(message);
  });
});

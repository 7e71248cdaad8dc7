import { SERVICE_VERSION } from '../common/versioning/service-version';
import { AppConfig } from '../config/app-config';
import { METRICS_PATH } from '../modules/observability/metrics-listener';
import type { AdminToken, DevCredentials } from './dev-credentials';

/**
 * The lines printed once the service is ready. A secret is printed only when the service made it
 * (the development admin token and demo key, kept in DATA_DIR): one given in the environment is
 * the operator's and stays out of the output, which often ends up in a log collector.
 */
export function startupBanner(options: {
  config: AppConfig;
  seconds: string;
  embeddedDatabase: boolean;
  /** The port the metrics listener took; undefined when METRICS_PORT is unset. */
  metricsPort: number | undefined;
  adminToken: AdminToken;
  demo?: DevCredentials;
}): string[] {
  const { config, adminToken, demo } = options;
  const { api, worker } = config.roles;
  const lines = [
    `Workspace records service ready in ${options.seconds}s`,
    `  Roles:        ${[api && 'api (serves the API)', worker && 'worker (runs the job queue and the periodic work)'].filter(Boolean).join(', ')}`,
    ...(api
      ? [
          `  API:          ${config.publicUrl}/v1`,
          `  Swagger UI:   ${config.publicUrl}/docs   (OpenAPI: ${config.publicUrl}/docs-json)`,
        ]
      : ['  API:          not served by this process (ROLES): only /health and /health/ready']),
    `  Database:     ${options.embeddedDatabase ? `embedded PostgreSQL in ${config.dataDir}/postgres` : 'DATABASE_URL'}`,
    options.metricsPort === undefined
      ? '  Metrics:      not served (set METRICS_PORT to serve them on a port of their own)'
      : `  Metrics:      GET ${METRICS_PATH} on port ${options.metricsPort}, every interface (METRICS_PORT)`,
  ];
  if (demo) lines.push(`  Demo API key: ${demo.apiKey}   (workspace ${demo.workspaceId}, every scope)`);
  if (adminToken.source === 'generated') {
    lines.push(`  Admin token:  ${adminToken.value}   (generated, kept in ${config.dataDir}/admin-token)`);
  } else if (adminToken.source === 'environment') {
    lines.push('  Admin token:  from ADMIN_TOKEN');
  } else {
    lines.push('  Operator API: disabled (set ADMIN_TOKEN to enable it)');
  }
  if (demo) {
    lines.push(
      `  Try: curl -H "Authorization: Bearer ${demo.apiKey}" -H "Service-Version: ${SERVICE_VERSION}" ${config.publicUrl}/v1/auth/validate`,
    );
  }
  return lines;
}

import { loadConfig } from '../config/app-config';
import { startupBanner } from './banner';

describe('startupBanner', () => {
  const config = loadConfig({ DATA_DIR: '/var/lib/records', PORT: '3000' });
  const demo = { workspaceId: 'wks_1', memberId: 'mem_1', apiKeyId: 'key_1', apiKey: `sk_${'d'.repeat(43)}` };
  const banner = (adminToken: Parameters<typeof startupBanner>[0]['adminToken'], metricsPort?: number) =>
    startupBanner({ config, seconds: '1.00', embeddedDatabase: true, metricsPort, adminToken, demo }).join('\n');

  it('prints an admin token the service generated, and where it is kept', () => {
    expect(banner({ source: 'generated', value: 'generated-token-0123456789' })).toContain(
      'Admin token:  generated-token-0123456789   (generated, kept in /var/lib/records/admin-token)',
    );
  });

  it('never prints an admin token that came from ADMIN_TOKEN', () => {
    const text = banner({ source: 'environment', value: 'operator-secret-0123456789' });
    expect(text).not.toContain('operator-secret-0123456789');
    expect(text).toContain('Admin token:  from ADMIN_TOKEN');
  });

  it('says the operator API is off without a token', () => {
    expect(banner({ source: 'none', value: undefined })).toContain(
      'Operator API: disabled (set ADMIN_TOKEN to enable it)',
    );
  });

  it('says where the metrics are served, or that they are not and which setting serves them', () => {
    const environment = { source: 'environment', value: 'operator-secret-0123456789' } as const;
    expect(banner(environment, 9464)).toContain(
      'Metrics:      GET /metrics on port 9464, every interface (METRICS_PORT)',
    );
    expect(banner(environment)).toContain(
      'Metrics:      not served (set METRICS_PORT to serve them on a port of their own)',
    );
  });

  it('names the roles of the process, and says a worker alone serves no API', () => {
    const environment = { source: 'environment', value: 'operator-secret-0123456789' } as const;
    expect(banner(environment)).toContain(
      'Roles:        api (serves the API), worker (runs the job queue and the periodic work)',
    );
    const worker = startupBanner({
      config: loadConfig({ ROLES: 'worker' }),
      seconds: '1.00',
      embeddedDatabase: false,
      metricsPort: undefined,
      adminToken: environment,
    });
    expect(worker).toContain('  Roles:        worker (runs the job queue and the periodic work)');
    expect(worker).toContain('  API:          not served by this process (ROLES): only /health and /health/ready');
    expect(worker.join('\n')).not.toContain('Swagger UI');
  });

  it('prints the demo key the service made, with a request to try', () => {
    const text = banner({ source: 'environment', value: 'operator-secret-0123456789' });
    expect(text).toContain(`Demo API key: ${demo.apiKey}`);
    expect(text).toContain(
      `curl -H "Authorization: Bearer ${demo.apiKey}" -H "Service-Version: 2026-03-01" http://localhost:3000/v1/auth/validate`,
    );
  });
});

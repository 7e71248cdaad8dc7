import { thrownApiError } from '../../../test/support/errors';
import { httpContext } from '../../../test/support/execution-context';
import { ApiError } from '../errors/api-error';
import { ServiceVersionGuard } from './service-version.guard';

const auth = { apiKeyId: 'key_x', workspaceId: 'wks_x', memberId: 'mem_x', memberRole: 'member', scopes: new Set() };

function refusal(request: Record<string, unknown>): ApiError {
  return thrownApiError(() => new ServiceVersionGuard().canActivate(httpContext(request)));
}

describe('ServiceVersionGuard', () => {
  it('lets an authenticated request with Service-Version: 2026-03-01 through', () => {
    expect(
      new ServiceVersionGuard().canActivate(httpContext({ auth, headers: { 'service-version': '2026-03-01' } })),
    ).toBe(true);
  });

  it('does not check public and operator routes (no API key on the request)', () => {
    expect(new ServiceVersionGuard().canActivate(httpContext({ headers: {} }))).toBe(true);
  });

  it('answers 400 version_header when the header is missing, saying what to send', () => {
    const error = refusal({ auth, headers: {} });
    expect([error.status, error.code, error.param]).toEqual([400, 'version_header', 'Service-Version']);
    expect(error.message).toContain('Service-Version: 2026-03-01');
  });

  it.each(['2025-01-01', '2026-03-01 ', '2026-03-02', 'latest', '', '2026-03-01, 2026-03-01'])(
    'answers 400 version_header for "%s", naming it and the version spoken',
    (version) => {
      const error = refusal({ auth, headers: { 'service-version': version } });
      expect([error.status, error.code, error.param]).toEqual([400, 'version_header', 'Service-Version']);
      expect(error.message).toContain(`"${version}"`);
      expect(error.message).toContain('2026-03-01');
    },
  );
});

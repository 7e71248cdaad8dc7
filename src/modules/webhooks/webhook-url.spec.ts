import { lookup } from 'node:dns/promises';
import { loadConfig } from '../../config/app-config';
import { isAllowedAddress, isPrivateAddress, resolveWebhookUrl } from './webhook-url';

jest.mock('node:dns/promises', () => ({ lookup: jest.fn() }));
const lookupMock = lookup as unknown as jest.Mock;

/** WEBHOOK_ALLOWED_NETWORKS as the service reads it. */
function allowed(setting: string) {
  return loadConfig({ WEBHOOK_ALLOWED_NETWORKS: setting }).webhooks.allowedNetworks!;
}

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fc00::1',
    'fe80::1',
    'fec0::1',
    'ff02::1',
    // IPv6 addresses that carry a private IPv4 one: mapped, compatible, NAT64, 6to4.
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::127.0.0.1',
    '::7f00:1',
    '64:ff9b::a00:1',
    '2002:0a00:0001::1',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '203.0.113.10',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:0808:0808::1',
  ])('lets %s through', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('isAllowedAddress', () => {
  const loopback = allowed('127.0.0.0/8,::1/128');

  it.each(['127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1'])(
    'lets %s through the loopback networks',
    (address) => {
      expect(isAllowedAddress(address, loopback)).toBe(true);
    },
  );

  it.each(['192.0.2.10', '10.0.0.1', '::2', '2001:db8::1', '::ffff:192.0.2.10', '64:ff9b::c000:20a', 'not an address'])(
    'refuses %s outside the loopback networks',
    (address) => {
      expect(isAllowedAddress(address, loopback)).toBe(false);
    },
  );

  it('reads IPv6 networks and bare addresses', () => {
    const networks = allowed('2001:db8::/32,192.0.2.7');
    expect(['2001:db8:ffff::1', '192.0.2.7'].map((address) => isAllowedAddress(address, networks))).toEqual([
      true,
      true,
    ]);
    expect(['2001:db9::1', '192.0.2.8'].map((address) => isAllowedAddress(address, networks))).toEqual([false, false]);
  });
});

describe('resolveWebhookUrl', () => {
  afterEach(() => lookupMock.mockReset());

  it('connects to the first address without WEBHOOK_ALLOWED_NETWORKS', async () => {
    lookupMock.mockResolvedValue([
      { address: '192.0.2.10', family: 4 },
      { address: '2001:db8::10', family: 6 },
    ]);
    await expect(resolveWebhookUrl(new URL('https://hooks.example.com/x'), false)).resolves.toEqual({
      address: '192.0.2.10',
      family: 4,
    });
  });

  it('connects to the first address inside WEBHOOK_ALLOWED_NETWORKS', async () => {
    lookupMock.mockResolvedValue([
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ]);
    await expect(
      resolveWebhookUrl(new URL('http://hooks.example.com/x'), true, allowed('127.0.0.0/8')),
    ).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
  });

  it('refuses, naming the setting, a host with no address inside WEBHOOK_ALLOWED_NETWORKS', async () => {
    await expect(
      resolveWebhookUrl(new URL('https://192.0.2.10/x'), false, allowed('127.0.0.0/8,::1/128')),
    ).resolves.toEqual({
      refused: 'the host resolves to 192.0.2.10, outside the networks deliveries may reach (WEBHOOK_ALLOWED_NETWORKS)',
    });
    await expect(
      resolveWebhookUrl(new URL('http://[2001:db8::1]:8080/x'), false, allowed('127.0.0.0/8,::1/128')),
    ).resolves.toEqual({
      refused: 'the host resolves to 2001:db8::1, outside the networks deliveries may reach (WEBHOOK_ALLOWED_NETWORKS)',
    });
    expect(lookupMock).not.toHaveBeenCalled();
  });

  it('applies WEBHOOK_ALLOWED_NETWORKS on top of the private network rule', async () => {
    await expect(resolveWebhookUrl(new URL('http://127.0.0.1:9/x'), false, allowed('127.0.0.0/8'))).resolves.toEqual({
      refused: 'the host resolves to 127.0.0.1, a loopback, private, link-local, multicast or unspecified address',
    });
  });

  it.each(['webhooks.invalid', 'INVALID', 'a.b.invalid.'])(
    'answers %s does not resolve without asking DNS (RFC 6761)',
    async (host) => {
      await expect(resolveWebhookUrl(new URL(`https://${host}/x`), false)).resolves.toEqual({
        refused: `the host ${new URL(`https://${host}/x`).hostname} does not resolve (ENOTFOUND)`,
      });
      expect(lookupMock).not.toHaveBeenCalled();
    },
  );
});

import { BlockList, isIP } from 'node:net';

/**
 * WEBHOOK_ALLOWED_NETWORKS of every app and service process the tests start (and of CI): webhook
 * deliveries reach loopback only, so an endpoint a test points elsewhere (the documented example,
 * a public address shown accepted) gets a failed attempt, never a connection.
 */
export const TEST_WEBHOOK_ALLOWED_NETWORKS = '127.0.0.0/8,::1/128';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether `address` (an IP address) is a loopback one; an IPv4-mapped IPv6 address is judged by its IPv4 one. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return LOOPBACK.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

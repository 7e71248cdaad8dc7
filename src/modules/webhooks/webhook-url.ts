import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ApiError } from '../../common/errors/api-error';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Addresses an endpoint may not reach unless WEBHOOK_ALLOW_PRIVATE_NETWORKS is set: loopback,
 * private, link-local, multicast and unspecified (and the IPv4 ranges that also reach the host or
 * its network: "this network", shared address space, broadcast).
 */
const PRIVATE_NETWORKS = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IP address) is one an endpoint may not reach by default. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE_NETWORKS.check(address, 'ipv4');
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) reaches the IPv4 address it holds.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE_NETWORKS.check(mapped, 'ipv4');
  return PRIVATE_NETWORKS.check(address, 'ipv6');
}

/**
 * An endpoint URL as the API takes it: a string (else 400 `invalid_type`) of at most 2,048
 * characters that parses as an absolute http or https URL without credentials (else 422
 * `invalid_value`, `param: "url"`).
 */
export function readWebhookUrl(value: unknown): URL {
  if (typeof value !== 'string') throw ApiError.invalidType('url', 'a string');
  if (value.length > MAX_WEBHOOK_URL_LENGTH) throw ApiError.invalidValue('url', `url holds at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ApiError.invalidValue('url', 'url must be an absolute http or https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw ApiError.invalidValue('url', 'url must use https or http');
  if (url.username || url.password) throw ApiError.invalidValue('url', 'url may not hold credentials');
  return url;
}

/** The address to connect to for `url`, or why there is none. */
export type Resolution = { address: string; family: 4 | 6 } | { refused: string };

/**
 * Resolves the URL's host and picks the address to connect to: the first one, unless private
 * networks are refused and any address of the host is private, which refuses the URL (a name
 * that resolves to a public and a private address could be pointed at either between check and
 * use). The caller connects to exactly the address answered, never resolving the name again.
 */
export async function resolveWebhookUrl(url: URL, allowPrivateNetworks: boolean): Promise<Resolution> {
  // URL keeps an IPv6 literal's brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    return { refused: `the host ${host.slice(0, 100)} does not resolve (${(error as { code?: string }).code ?? 'error'})` };
  }
  if (addresses.length === 0) return { refused: `the host ${host.slice(0, 100)} has no address` };
  const blocked = allowPrivateNetworks ? undefined : addresses.find(({ address }) => isPrivateAddress(address));
  if (blocked) {
    return { refused: `the host resolves to ${blocked.address}, a loopback, private, link-local, multicast or unspecified address` };
  }
  const [first] = addresses;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

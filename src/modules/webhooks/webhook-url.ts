import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ApiError } from '../../common/errors/api-error';
import type { Network } from '../../config/app-config';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Addresses an endpoint may not reach unless WEBHOOK_ALLOW_PRIVATE_NETWORKS is set: loopback,
 * private, link-local, multicast and unspecified (and the IPv4 ranges that also reach the host or
 * its network: "this network", shared address space, broadcast; and IPv6 site-local, the private
 * range before unique local addresses).
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
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, 'ipv6');
}

/** The 8 groups of an IPv6 address, as numbers (`::` expanded, a dotted IPv4 tail read as two groups). */
function ipv6Groups(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = dotted
    ? address.slice(0, dotted.index) +
      (((+dotted[1] << 8) | +dotted[2]).toString(16) + ':' + ((+dotted[3] << 8) | +dotted[4]).toString(16))
    : address;
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const part = (piece: string | undefined) => (piece ? piece.split(':').map((group) => parseInt(group, 16)) : []);
  const [front, back] = [part(head), part(tail)];
  return tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The IPv4 address an IPv6 address reaches, in the forms that carry one: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated, still routed by some stacks),
 * NAT64 (`64:ff9b::/96`) and 6to4 (`2002:aabb:ccdd::/48`).
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  const ipv4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0) && !(groups[5] === 0 && groups[6] === 0))
    return ipv4(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return ipv4(groups[6], groups[7]);
  if (groups[0] === 0x2002) return ipv4(groups[1], groups[2]);
  return undefined;
}

/**
 * Whether `address` (an IP address) is inside one of `networks`. An IPv6 address that carries an
 * IPv4 one is judged by the IPv4 one: that is where it leads. Not an IP address → `otherwise`.
 */
function isIn(networks: BlockList, address: string, otherwise: boolean): boolean {
  const family = isIP(address);
  if (family === 4) return networks.check(address, 'ipv4');
  if (family !== 6) return otherwise;
  const carried = embeddedIpv4(address);
  if (carried !== undefined) return networks.check(carried, 'ipv4');
  return networks.check(address, 'ipv6');
}

/** Whether `address` (an IP address) is one an endpoint may not reach by default. */
export function isPrivateAddress(address: string): boolean {
  return isIn(PRIVATE_NETWORKS, address, true);
}

/** Each WEBHOOK_ALLOWED_NETWORKS setting's BlockList, made once. */
const allowLists = new WeakMap<readonly Network[], BlockList>();

/** Whether `address` (an IP address) is inside one of `networks` (WEBHOOK_ALLOWED_NETWORKS). */
export function isAllowedAddress(address: string, networks: readonly Network[]): boolean {
  let allowList = allowLists.get(networks);
  if (!allowList) {
    allowList = new BlockList();
    for (const { address: network, prefix, family } of networks) allowList.addSubnet(network, prefix, family);
    allowLists.set(networks, allowList);
  }
  return isIn(allowList, address, false);
}

/**
 * An endpoint URL as the API takes it: a string (else 400 `invalid_type`) of at most 2,048
 * characters that parses as an absolute http or https URL without credentials (else 422
 * `invalid_value`, `param: "url"`).
 */
export function readWebhookUrl(value: unknown): URL {
  if (typeof value !== 'string') throw ApiError.invalidType('url', 'a string');
  if (value.length > MAX_WEBHOOK_URL_LENGTH)
    throw ApiError.invalidValue('url', `url holds at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ApiError.invalidValue('url', 'url must be an absolute http or https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw ApiError.invalidValue('url', 'url must use https or http');
  if (url.username || url.password) throw ApiError.invalidValue('url', 'url may not hold credentials');
  return url;
}

/** The address to connect to for `url`, or why there is none. */
export type Resolution = { address: string; family: 4 | 6 } | { refused: string };

/** RFC 6761 §6.4: a name under `invalid` never resolves, and is answered so without asking DNS. */
const RESERVED_INVALID = /(^|\.)invalid\.?$/i;

/**
 * Resolves the URL's host and picks the address to connect to: the first one, unless private
 * networks are refused and any address of the host is private, which refuses the URL (a name
 * that resolves to a public and a private address could be pointed at either between check and
 * use). With `allowedNetworks` (WEBHOOK_ALLOWED_NETWORKS, given when an attempt is made), the
 * first address inside one of them, and none inside refuses the URL. The caller connects to
 * exactly the address answered, never resolving the name again.
 */
export async function resolveWebhookUrl(
  url: URL,
  allowPrivateNetworks: boolean,
  allowedNetworks?: readonly Network[],
): Promise<Resolution> {
  // URL keeps an IPv6 literal's brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const unresolved = (code: string) => ({ refused: `the host ${host.slice(0, 100)} does not resolve (${code})` });
  if (RESERVED_INVALID.test(host)) return unresolved('ENOTFOUND');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) }]
      : await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    return unresolved((error as { code?: string }).code ?? 'error');
  }
  if (addresses.length === 0) return { refused: `the host ${host.slice(0, 100)} has no address` };
  const blocked = allowPrivateNetworks ? undefined : addresses.find(({ address }) => isPrivateAddress(address));
  if (blocked) {
    return {
      refused: `the host resolves to ${blocked.address}, a loopback, private, link-local, multicast or unspecified address`,
    };
  }
  const chosen = allowedNetworks
    ? addresses.find(({ address }) => isAllowedAddress(address, allowedNetworks))
    : addresses[0];
  if (!chosen) {
    const shown =
      addresses
        .slice(0, 3)
        .map(({ address }) => address)
        .join(', ') + (addresses.length > 3 ? ', …' : '');
    return {
      refused: `the host resolves to ${shown}, outside the networks deliveries may reach (WEBHOOK_ALLOWED_NETWORKS)`,
    };
  }
  return { address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

// The module object itself, not an ES namespace copy: its lookup functions are replaced in place for every user of node:dns.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import dns = require('node:dns');
import { isIP, type LookupFunction, Socket } from 'node:net';
import { isLoopbackAddress } from './loopback';

/**
 * The test process connects to loopback only (127.0.0.0/8, ::1): a jest setup file (every jest
 * config lists it in setupFilesAfterEnv) wraps `net.Socket.prototype.connect`, which `net.connect`,
 * `tls.connect`, `http`, `pg` and `ioredis` all go through. A TCP connection to any other address
 * is never opened: the socket is destroyed with an error, as a refused connection would be, and the
 * destination is recorded; the test file then fails as it ends, even where the code under test
 * swallowed the error (a webhook attempt records it as a failure and moves on). Unix sockets pass.
 *
 * The wrapper is installed once per jest worker (the prototype is shared by the test files it
 * runs); the record lives on the prototype, under a registered symbol, for each file to read.
 */

export const LOOPBACK_ONLY_CODE = 'ERR_LOOPBACK_ONLY';

export type Connect = (this: Socket, options: ConnectOptions, ...rest: unknown[]) => Socket;

export interface Guard {
  /** Each refused destination (`host:port`, with the address a name resolved to), in order. */
  refused: string[];
  /** Node's own `Socket#connect`, which the guard calls for what it lets through. */
  connect: Connect;
}

export type ConnectOptions = { path?: string | null; host?: string; port?: number | string; lookup?: LookupFunction };

const GUARD = Symbol.for('workspace-records.test.loopback-only');
type GuardedPrototype = Socket & { [GUARD]?: Guard };

function refusal(destination: string): Error {
  return Object.assign(
    new Error(`test guard: no connection to ${destination}; tests connect to loopback only (127.0.0.0/8, ::1)`),
    {
      code: LOOPBACK_ONLY_CODE,
    },
  );
}

/**
 * `Socket#connect`'s arguments, in any form it takes, as (options, listener?): the options object
 * is the caller's own (net.connect passes it inside an array), so a lookup set on it is used.
 */
function asOptions(args: unknown[]): [ConnectOptions, ...unknown[]] {
  if (Array.isArray(args[0])) return [args[0][0] as ConnectOptions, ...args[0].slice(1)];
  if (typeof args[0] === 'object' && args[0] !== null) return args as [ConnectOptions, ...unknown[]];
  const listener = args.find((arg) => typeof arg === 'function');
  if (typeof args[0] === 'string' && !/^\d+$/.test(args[0])) return [{ path: args[0] }, listener];
  return [{ port: args[0] as number | string, host: typeof args[1] === 'string' ? args[1] : undefined }, listener];
}

/** A lookup that answers as `lookup` does, or refuses (and records) a name that resolves to a non-loopback address. */
function loopbackLookup(lookup: LookupFunction, port: number | string | undefined, guard: Guard): LookupFunction {
  return (hostname, options, callback) => {
    lookup(
      hostname,
      options,
      (error: NodeJS.ErrnoException | null, address: string | { address: string }[], family?: number) => {
        if (error) return callback(error, address as string, family);
        const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
        const outside = addresses.find((candidate) => !isLoopbackAddress(candidate));
        if (outside === undefined) return callback(null, address as string, family);
        const destination = `${hostname} (${outside}):${port}`;
        guard.refused.push(destination);
        callback(refusal(destination), '', 0);
      },
    );
  };
}

/** Names the machine answers itself (/etc/hosts, RFC 6761 §6.3), without asking a DNS server. */
const LOCAL_NAME = /^(localhost|.+\.localhost)\.?$/i;

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (test guard: no DNS query leaves this machine)`), {
    code: 'ENOTFOUND',
    hostname,
  });
}

/**
 * A DNS query is traffic too: it goes to the machine's resolver, which is not on loopback. In the
 * test process a name other than localhost is answered as not found without a query, as an
 * offline resolver would (the webhook URL checks resolve the names tests give them), through both
 * `dns.lookup` and `dns.promises.lookup`, which the service and Node's own connect use.
 */
function guardLookups(): void {
  const lookup = dns.lookup;
  const guardedLookup = function (hostname: string, ...rest: unknown[]) {
    if (isIP(hostname) || LOCAL_NAME.test(hostname)) return (lookup as (...args: unknown[]) => void)(hostname, ...rest);
    const callback = rest.find((arg) => typeof arg === 'function') as (error: Error) => void;
    process.nextTick(() => callback(notFound(hostname)));
  };
  (dns as { lookup: unknown }).lookup = guardedLookup;
  const promiseLookup = dns.promises.lookup;
  (dns.promises as { lookup: unknown }).lookup = (hostname: string, ...rest: unknown[]) =>
    isIP(hostname) || LOCAL_NAME.test(hostname)
      ? (promiseLookup as (...args: unknown[]) => Promise<unknown>)(hostname, ...rest)
      : Promise.reject(notFound(hostname));
}

/** Installs the wrapper in this worker (once) and returns its record. */
export function installLoopbackGuard(): Guard {
  const prototype = Socket.prototype as GuardedPrototype;
  const installed = prototype[GUARD];
  if (installed) return installed;
  guardLookups();
  const guard: Guard = { refused: [], connect: prototype.connect as Connect };
  prototype.connect = function guardedConnect(this: Socket, ...args: unknown[]): Socket {
    const [options, ...rest] = asOptions(args);
    // As Node reads it: a path (not null, not empty) is a unix socket or a named pipe.
    if (options.path) return guard.connect.call(this, options, ...rest);
    const host = options.host || 'localhost';
    if (isIP(host)) {
      if (isLoopbackAddress(host)) return guard.connect.call(this, options, ...rest);
      const destination = `${host}:${options.port}`;
      guard.refused.push(destination);
      process.nextTick(() => this.destroy(refusal(destination)));
      return this;
    }
    // A name: checked on the addresses it resolves to, the ones Node then connects to.
    options.lookup = loopbackLookup(options.lookup ?? dns.lookup, options.port, guard);
    return guard.connect.call(this, options, ...rest);
  };
  prototype[GUARD] = guard;
  return guard;
}

/** The destinations refused since the last call, which clears them. */
export function takeRefusedConnections(): string[] {
  return installLoopbackGuard().refused.splice(0);
}

/** Throws, listing them, if any connection was refused since the last call. */
export function assertNoRefusedConnections(where: string): void {
  const refused = takeRefusedConnections();
  if (refused.length > 0) {
    throw new Error(
      `${where} tried to connect outside loopback (test/support/loopback-only.ts refused it):\n  ${refused.join('\n  ')}`,
    );
  }
}

// As a jest setup file: guard this worker, and fail each test file that tried.
if (typeof afterAll === 'function') {
  installLoopbackGuard();
  afterAll(() => assertNoRefusedConnections(expect.getState().testPath ?? 'this test file'));
}

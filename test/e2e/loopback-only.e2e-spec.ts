import { lookup as dnsLookup, promises as dnsPromises } from 'node:dns';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { connect as netConnect, createServer, isIP, type LookupFunction, type Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { isLoopbackAddress } from '../support/loopback';
import {
  assertNoRefusedConnections,
  type ConnectOptions,
  installLoopbackGuard,
  LOOPBACK_ONLY_CODE,
  takeRefusedConnections,
} from '../support/loopback-only';

/** How a socket ended: connected, or the error code it was destroyed with. */
function outcome(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('secureConnect', () => resolve('connected'));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** A name that resolves to `address`, without asking DNS. */
function resolvingTo(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all)
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };
}

describe('the loopback-only guard of every jest run (test/support/loopback-only.ts)', () => {
  let server: Server;
  let port: number;
  let unixServer: Server;
  let folder: string;

  beforeAll(async () => {
    // The targets below are refused only while the guard is on: never try them without it.
    const guarded = Socket.prototype as unknown as Record<symbol, unknown>;
    if (!guarded[Symbol.for('workspace-records.test.loopback-only')])
      throw new Error('the guard is not installed: check setupFilesAfterEnv');
    server = createServer((socket) => socket.end()).listen(0, '::');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
    folder = mkdtempSync(path.join(tmpdir(), 'records-guard-'));
    unixServer = createServer((socket) => socket.end()).listen(path.join(folder, 'socket'));
    await once(unixServer, 'listening');
  });
  afterAll(async () => {
    server.close();
    unixServer.close();
    await Promise.all([once(server, 'close'), once(unixServer, 'close')]);
    rmSync(folder, { recursive: true, force: true });
  });
  afterEach(() => takeRefusedConnections());

  it('knows loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map(isLoopbackAddress)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      ['192.0.2.1', '10.0.0.1', '0.0.0.0', '::', '2001:db8::1', '::ffff:192.0.2.1', 'localhost'].map(isLoopbackAddress),
    ).toEqual(Array(7).fill(false));
  });

  it('refuses and records a TCP connection to a non-loopback address, in every form the callers use', async () => {
    // Below the guard, Node's connect is replaced for this test by one that never connects: it
    // reports what the guard let through (after a lookup, for a name), so that a hole in the guard
    // fails the test instead of reaching the network.
    const guard = installLoopbackGuard();
    const nodeConnect = guard.connect;
    const letThrough: string[] = [];
    guard.connect = function neverConnect(this: Socket, options: ConnectOptions): Socket {
      const leaked = (destination: string) => {
        letThrough.push(destination);
        process.nextTick(() => this.destroy(new Error(`let through: ${destination}`)));
      };
      if (options.lookup && !isIP(options.host ?? '')) {
        options.lookup(options.host!, { all: true }, ((
          error: NodeJS.ErrnoException | null,
          addresses: { address: string }[],
        ) => {
          if (error) process.nextTick(() => this.destroy(error));
          else leaked(`${options.host} (${addresses.map(({ address }) => address).join(', ')})`);
        }) as never);
      } else leaked(`${options.host ?? options.path}:${options.port}`);
      return this;
    };
    try {
      const attempts = [
        netConnect({ host: '192.0.2.1', port: 9 }),
        netConnect(9, '2001:db8::1'),
        new Socket().connect(5432, '10.0.0.1'),
        tlsConnect({ host: '192.0.2.2', port: 443 }),
        netConnect({ host: 'hooks.example.com', port: 80, lookup: resolvingTo('192.0.2.3', 4) }),
      ];
      const outcomes = Promise.all(attempts.map(outcome));
      const request = get({ host: '192.0.2.4', port: 8080, path: '/hooks' });
      const failure = await new Promise<NodeJS.ErrnoException>((resolve) => request.once('error', resolve));
      expect({ outcomes: await outcomes, http: failure.code }).toEqual({
        outcomes: Array(5).fill(LOOPBACK_ONLY_CODE),
        http: LOOPBACK_ONLY_CODE,
      });
    } finally {
      guard.connect = nodeConnect;
    }
    expect(letThrough).toEqual([]);
    expect(takeRefusedConnections()).toEqual([
      '192.0.2.1:9',
      '2001:db8::1:9',
      '10.0.0.1:5432',
      '192.0.2.2:443',
      'hooks.example.com (192.0.2.3):80',
      '192.0.2.4:8080',
    ]);
  });

  it('answers a name other than localhost as not found, without a DNS query, through both lookups the service and Node use', async () => {
    installLoopbackGuard();
    await expect(dnsPromises.lookup('hooks.example.com', { all: true })).rejects.toMatchObject({ code: 'ENOTFOUND' });
    const callbackError = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      dnsLookup('registry.example.org', (error) => resolve(error)),
    );
    expect(callbackError).toMatchObject({ code: 'ENOTFOUND' });
    expect(await dnsPromises.lookup('localhost', { all: true })).toEqual(
      expect.arrayContaining([expect.objectContaining({ address: expect.any(String) })]),
    );
    expect((await dnsPromises.lookup('127.0.0.1')).address).toBe('127.0.0.1');
    expect(takeRefusedConnections()).toEqual([]);
  });

  it('lets 127.0.0.1, ::1, a name of loopback addresses and unix sockets through, and records nothing', async () => {
    const attempts = [
      netConnect({ host: '127.0.0.1', port }),
      netConnect(port, '::1'),
      new Socket().connect(port),
      new Socket().connect(port, 'localhost'),
      netConnect({ host: 'receiver.test', port, lookup: resolvingTo('127.0.0.1', 4) }),
      netConnect(path.join(folder, 'socket')),
    ];
    expect(await Promise.all(attempts.map(outcome))).toEqual(Array(6).fill('connected'));
    expect(takeRefusedConnections()).toEqual([]);
  });

  it('fails the test file as it ends with each destination it refused, even where the error was swallowed', () => {
    installLoopbackGuard().refused.push('192.0.2.9:443');
    expect(() => assertNoRefusedConnections('this file')).toThrow(
      'this file tried to connect outside loopback (test/support/loopback-only.ts refused it):\n  192.0.2.9:443',
    );
    expect(takeRefusedConnections()).toEqual([]);
  });

  it('is installed once per worker, however many test files set it up', () => {
    expect(installLoopbackGuard()).toBe(installLoopbackGuard());
  });
});

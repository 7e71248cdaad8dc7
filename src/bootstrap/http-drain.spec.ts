import { Agent, createServer, get, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpDrain } from './http-drain';

/** A server whose `/slow` requests wait until `release()`; everything else answers at once. */
function slowServer() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived: () => void = () => undefined;
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url !== '/slow') return void response.end('fast');
    arrived();
    void released.then(() => response.end('slow'));
  });
  return { server, release, slowArrived };
}

function fetchVia(
  port: number,
  path: string,
  agent: Agent,
): Promise<{ status: number; connection?: string; error?: string }> {
  return new Promise((resolve) => {
    get({ host: '127.0.0.1', port, path, agent }, (res) =>
      res.resume().on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection })),
    ).on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, error: error.code }));
  });
}

/**
 * What `promise` has come to after a few turns of the event loop (enough for a closed server's
 * handle to report it), with the fake clock standing still: its value, or 'still waiting'.
 */
async function settledWithoutTimers<T>(promise: Promise<T>, turns = 20): Promise<T | 'still waiting'> {
  let outcome: { value: T } | { error: unknown } | undefined;
  promise.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  for (let turn = 0; turn < turns && !outcome; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  if (outcome && 'error' in outcome) throw outcome.error;
  return outcome ? outcome.value : 'still waiting';
}

describe('HttpDrain', () => {
  const agents: Agent[] = [];
  const keepAlive = () => {
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    return agent;
  };
  afterEach(() => agents.splice(0).forEach((agent) => agent.destroy()));

  async function listening(server: Server): Promise<number> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  describe('on a clock that moves only when the test moves it', () => {
    // Timers are fake (the deadline's setTimeout among them); sockets and setImmediate are real.
    // What is asserted is when the drain ends relative to its deadline, whatever the machine's speed.
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    it('answers a request in flight with Connection: close, closes idle keep-alive connections, stops accepting', async () => {
      const { server, release, slowArrived } = slowServer();
      const drain = new HttpDrain(server);
      const port = await listening(server);
      const idleAgent = keepAlive();
      expect(await fetchVia(port, '/fast', idleAgent)).toEqual({ status: 200, connection: 'keep-alive' });
      const idleSocketClosed = new Promise<void>((resolve) =>
        Object.values(idleAgent.freeSockets)[0]![0].once('close', () => resolve()),
      );
      const slow = fetchVia(port, '/slow', keepAlive());
      await slowArrived;

      const drained = drain.drain(5000);
      expect(drain.isDraining).toBe(true);
      await idleSocketClosed;
      expect((await fetchVia(port, '/fast', keepAlive())).error).toBe('ECONNREFUSED');
      release();
      expect(await slow).toEqual({ status: 200, connection: 'close' });
      // Ended by the last response, not by the deadline (5 s on a clock that does not move).
      expect(await settledWithoutTimers(drained)).toEqual({ cut: 0 });
      expect(server.listening).toBe(false);
    });

    it('closes the connections of requests still running at the deadline, not before', async () => {
      const { server, release, slowArrived } = slowServer();
      const drain = new HttpDrain(server);
      const port = await listening(server);
      const slow = fetchVia(port, '/slow', keepAlive());
      await slowArrived;
      const drained = drain.drain(300);
      jest.advanceTimersByTime(299);
      expect(await settledWithoutTimers(drained)).toBe('still waiting');
      jest.advanceTimersByTime(1);
      expect(await drained).toEqual({ cut: 1 });
      expect((await slow).error).toBe('ECONNRESET');
      release();
    });

    it('resolves at once when nothing is in flight', async () => {
      const { server } = slowServer();
      const drain = new HttpDrain(server);
      await listening(server);
      expect(await settledWithoutTimers(drain.drain(5000))).toEqual({ cut: 0 });
    });
  });
});

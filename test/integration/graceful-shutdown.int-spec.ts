import { existsSync } from 'node:fs';
import { Agent, ClientRequest, IncomingMessage, request } from 'node:http';
import { connect, Socket } from 'node:net';
import * as path from 'node:path';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { HttpCall, httpCall, keepSending } from '../support/http-call';
import { OwnRedis } from '../support/redis';
import { ServiceProcess } from '../support/service-process';

const ADMIN_TOKEN = 'graceful-shutdown-admin-token-0123456789';
const DEADLINE_SECONDS = 4;

/** A POST whose body is only half sent: in flight until `finish()`; `answer` is what the client gets. */
function halfSentWrite(service: ServiceProcess, key: string, agent: Agent) {
  const body = JSON.stringify({ fields: { $title: 'sent across SIGTERM' } });
  const req: ClientRequest = request(`${service.baseUrl}/v1/notes`, {
    method: 'POST',
    agent,
    headers: {
      Authorization: `Bearer ${key}`,
      'Service-Version': SERVICE_VERSION,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
    },
  });
  const answer = new Promise<{ status: number; connection?: string; error?: string }>((resolve) => {
    req.on('response', (res: IncomingMessage) =>
      res.resume().on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection })),
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, error: error.code ?? error.message }));
  });
  req.write(body.slice(0, 12));
  return { answer, finish: () => req.end(body.slice(12)) };
}

/** A keep-alive connection that made one request and now sits idle; `closedAt` is when the server closed it. */
async function idleKeepAliveConnection(service: ServiceProcess): Promise<{ socket: Socket; closed: Promise<number> }> {
  const { hostname, port } = new URL(service.baseUrl);
  const socket = connect(Number(port), hostname);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const answered = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`);
  await answered;
  return { socket, closed };
}

describe('SIGTERM under keep-alive load: drain, Connection: close, deadline, exit 0', () => {
  let redis: OwnRedis;
  let dataDir: string | undefined;
  const services: ServiceProcess[] = [];

  async function startService(env: Record<string, string> = {}): Promise<{ service: ServiceProcess; key: string }> {
    const service = await ServiceProcess.start(
      { ADMIN_TOKEN, REDIS_URL: redis.url, RATE_LIMIT_READ: '100000', RATE_LIMIT_WRITE: '100000', ...env },
      dataDir,
    );
    services.push(service);
    dataDir = service.dataDir;
    const [, key] = await service.waitForOutput(/Demo API key: (sk_[0-9A-Za-z]+)/);
    return { service, key };
  }

  beforeAll(async () => {
    redis = await OwnRedis.start();
  });
  afterAll(async () => {
    for (const service of services) await service.dispose({ keepData: true });
    await services.at(-1)?.dispose();
    await redis?.stop();
  });

  it('answers what is in flight with Connection: close, closes idle connections, never answers 5xx, exits 0 and stops its database', async () => {
    const { service, key } = await startService({ SHUTDOWN_TIMEOUT_SECONDS: String(DEADLINE_SECONDS) });
    // The banner prints the admin token only when the service made it.
    expect(service.stdout).toContain('Admin token:  from ADMIN_TOKEN');
    expect(service.stdout).not.toContain(ADMIN_TOKEN);

    const agents = Array.from({ length: 4 }, () => new Agent({ keepAlive: true, maxSockets: 2 }));
    const headers = { Authorization: `Bearer ${key}`, 'Service-Version': SERVICE_VERSION };
    const load = keepSending(8, (worker, i) =>
      httpCall(service.baseUrl, {
        agent: agents[worker % agents.length],
        headers,
        ...(i % 2 === 0
          ? { path: '/v1/auth/validate' }
          : { method: 'POST', path: '/v1/notes', body: { fields: { $title: `load ${worker}/${i}` } } }),
      }),
    );
    try {
      const idle = await idleKeepAliveConnection(service);
      const slowAgent = new Agent({ keepAlive: true });
      const slow = [halfSentWrite(service, key, slowAgent), halfSentWrite(service, key, slowAgent)];
      while (load.calls.filter((call) => call.status === 200).length < 100)
        await new Promise((resolve) => setTimeout(resolve, 20));

      const signalledAt = Date.now();
      service.signal('SIGTERM');
      await service.waitForOutput(/SIGTERM: draining/);
      const drainingAt = Date.now();
      const idleClosedAt = await idle.closed;

      // Requests in flight when the drain began finish normally, and ask the client to go elsewhere.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const write of slow) write.finish();
      for (const write of slow) expect(await write.answer).toEqual({ status: 200, connection: 'close' });

      const exit = await service.exited;
      const calls: HttpCall[] = await load.stop();
      agents.forEach((agent) => agent.destroy());
      slowAgent.destroy();

      expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
      expect(exit.at - signalledAt).toBeLessThan(DEADLINE_SECONDS * 1000);
      expect(idleClosedAt).toBeLessThan(exit.at);
      // No 5xx at any time (with REDIS_URL, every request of the drain used to be a 500).
      expect(
        calls.filter((call) => call.status >= 500).map((call) => `${call.method} ${call.path} ${call.status}`),
      ).toEqual([]);
      // Once draining, an answer always says Connection: close; otherwise the connection was refused
      // (the server no longer accepts) or closed (an idle connection reused at the wrong moment).
      for (const call of calls.filter((each) => each.startedAt > drainingAt)) {
        const outcome = call.error ?? `HTTP ${call.status}, Connection: ${call.headers.connection}`;
        expect([`HTTP 200, Connection: close`, 'ECONNREFUSED', 'ECONNRESET', 'socket hang up']).toContain(outcome);
      }
      expect(calls.filter((call) => call.status === 200).length).toBeGreaterThan(100);
      // The embedded PostgreSQL was stopped before the exit.
      expect(existsSync(path.join(service.dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    } finally {
      await load.stop();
    }
  });

  it('answers every waiting long poll at once on SIGTERM, its empty page at the same place in the feed, and exits 0 well before the deadline', async () => {
    const { service, key } = await startService({ SHUTDOWN_TIMEOUT_SECONDS: String(DEADLINE_SECONDS) });
    const headers = { Authorization: `Bearer ${key}`, 'Service-Version': SERVICE_VERSION };
    let page = (await httpCall(service.baseUrl, { path: '/v1/events?limit=100', headers })).body;
    while (page.data.length === 100)
      page = (await httpCall(service.baseUrl, { path: `/v1/events?cursor=${page.nextCursor}`, headers })).body;
    const cursor: string = page.nextCursor;
    const waiting = Array.from({ length: 3 }, () =>
      httpCall(service.baseUrl, { path: `/v1/events?cursor=${cursor}&wait=30`, headers }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const signalledAt = Date.now();
    service.signal('SIGTERM');
    const answers = await Promise.all(waiting);
    const answeredIn = Date.now() - signalledAt;
    // The same place in the feed (a cursor also carries when it was read, which moves).
    const place = (text: string) => JSON.parse(Buffer.from(text, 'base64url').toString('utf8')).slice(0, 4);
    expect(answers.map((answer) => [answer.status, answer.body.data, place(answer.body.nextCursor)])).toEqual(
      answers.map(() => [200, [], place(cursor)]),
    );
    // The waits were cut short: none waited for its 30 s, nor held the drain to its deadline.
    expect(answeredIn).toBeLessThan(1000);
    const exit = await service.exited;
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(DEADLINE_SECONDS * 1000);
  });

  it('closes the connections of requests still running at the deadline, then exits 0', async () => {
    const { service, key } = await startService({ SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const agent = new Agent({ keepAlive: true });
    const stuck = halfSentWrite(service, key, agent); // its body never comes
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalledAt = Date.now();
    service.signal('SIGTERM');
    const exit = await service.exited;
    agent.destroy();
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(1000);
    expect(exit.at - signalledAt).toBeLessThan(4000);
    expect(service.stdout).toContain('closed 1 connection(s) whose requests were still running at the deadline');
    expect((await stuck.answer).status).toBe(0);
    expect(existsSync(path.join(service.dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });
});

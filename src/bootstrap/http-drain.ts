import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export interface DrainOutcome {
  /** Requests still unanswered at the deadline, whose connections were closed under them. */
  cut: number;
}

/**
 * Drains an HTTP server the way a load balancer expects on SIGTERM. `server.close()` alone stops
 * accepting connections but lets a busy keep-alive client go on sending requests on its open
 * connection for as long as it likes, so the process never ends. Draining therefore also:
 * - answers every request still in flight, and every request that arrives afterwards on an open
 *   connection, with `Connection: close`, so the client moves to another instance;
 * - closes idle keep-alive connections at once, and each one as soon as its last response is out;
 * - after the deadline, closes what is left, requests in flight included.
 * Track the server before it listens: requests are counted from their start.
 */
export class HttpDrain {
  private draining = false;
  private readonly inFlight = new Set<ServerResponse>();

  constructor(private readonly server: Server) {
    // First listener: it must see each response before the application can send its headers.
    server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => this.track(response));
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Resolves once every connection is closed: all requests answered, or cut at the deadline. */
  async drain(deadlineMs: number): Promise<DrainOutcome> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const response of this.inFlight) this.askToClose(response);
    this.server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs)));
    const first = await Promise.race([closed, deadline]);
    clearTimeout(timer);
    if (first !== 'deadline') return { cut: 0 };
    const cut = this.inFlight.size;
    this.server.closeAllConnections();
    await closed;
    return { cut };
  }

  private track(response: ServerResponse): void {
    this.inFlight.add(response);
    if (this.draining) this.askToClose(response);
    response.once('close', () => {
      this.inFlight.delete(response);
      // A response whose headers went out before the drain kept its connection alive: close it
      // once it is idle (on the next turn, when the server has marked it so).
      if (this.draining) setImmediate(() => this.server.closeIdleConnections());
    });
  }

  private askToClose(response: ServerResponse): void {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  }
}

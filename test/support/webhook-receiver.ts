import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A new endpoint secret, as the service makes them: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** One request whose signature verified, and how the receiver answered it. */
export interface ReceivedWebhook {
  /** The `webhook-id` header. */
  id: string;
  /** The event type, from the body. */
  type: string;
  /** The body as sent (what the signature covers). */
  body: string;
  /** The body parsed. */
  payload: any;
  headers: Record<string, string>;
  /** When the request arrived (ms since the epoch). */
  receivedAt: number;
  /** The status the receiver chose for it. */
  status: number;
  /** True once the whole answer was written; false while it is held (slow) or if its connection closed first. */
  answered: boolean;
}

/** What the receiver answers: a status, its headers, and how long it waits before answering. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

/**
 * A webhook receiver on 127.0.0.1: a node:http server that verifies every request's Standard
 * Webhooks signature with the endpoint's secret (the `standardwebhooks` package, as a customer's
 * receiver would), keeps the verified ones in `received` and the others in `rejected` (answered
 * 401), and counts every connection made to it, verified or not.
 *
 * By default it answers 204 at once. `answer()` sets what it answers from now on, or `answerNext()`
 * for the next requests only (a 503 with Retry-After, a 410, a 10 s wait…); `down()` closes it,
 * cutting any connection open, and `up()` listens again on the same port; `close()` ends it.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  readonly rejected: { headers: Record<string, string>; body: string; reason: string }[] = [];
  /** Connections accepted, whatever came on them. */
  connections = 0;
  private answerAlways: Answer = { status: 204 };
  private readonly scripted: Answer[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly held = new Set<NodeJS.Timeout>();
  private server?: Server;

  private constructor(
    readonly secret: string,
    readonly port: number,
  ) {}

  /** Starts a receiver for an endpoint whose secret is `secret`, on a free port unless `port` is given. */
  static async start(secret: string, port = 0): Promise<WebhookReceiver> {
    const server = await WebhookReceiver.listen(port, (request, response) => receiver.handle(request, response));
    const receiver = new WebhookReceiver(secret, (server.address() as { port: number }).port);
    receiver.attach(server);
    return receiver;
  }

  /** The endpoint URL that reaches this receiver. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** Answers `answer` to every request from now on (after any scripted by answerNext). */
  answer(answer: Answer): void {
    this.answerAlways = answer;
  }

  /** Answers each of `answers` to one of the next requests, in order, then as answer() says. */
  answerNext(...answers: Answer[]): void {
    this.scripted.push(...answers);
  }

  /** The verified requests answered 2xx in full. */
  get delivered(): ReceivedWebhook[] {
    return this.received.filter((hook) => hook.answered && hook.status >= 200 && hook.status < 300);
  }

  /** Requests held (a slow answer) right now. */
  get inFlight(): number {
    return this.held.size;
  }

  /** Stops listening and cuts every connection, held answers included: a receiver that went away. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const timer of this.held) clearTimeout(timer);
    this.held.clear();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** Listens again on the same port. */
  async up(): Promise<void> {
    if (this.server) return;
    this.attach(await WebhookReceiver.listen(this.port, (request, response) => this.handle(request, response)));
  }

  async close(): Promise<void> {
    await this.down();
  }

  private static async listen(
    port: number,
    handler: (request: IncomingMessage, response: ServerResponse) => void,
  ): Promise<Server> {
    const server = createServer(handler);
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return server;
  }

  private attach(server: Server): void {
    this.server = server;
    server.on('connection', (socket: Socket) => {
      this.connections += 1;
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      try {
        new Webhook(this.secret).verify(body, headers);
      } catch (error) {
        this.rejected.push({ headers, body, reason: (error as Error).message });
        response.writeHead(401).end();
        return;
      }
      const answer = this.scripted.shift() ?? this.answerAlways;
      const payload = JSON.parse(body);
      const hook: ReceivedWebhook = {
        id: headers['webhook-id'],
        type: payload.type,
        body,
        payload,
        headers,
        receivedAt: Date.now(),
        status: answer.status,
        answered: false,
      };
      this.received.push(hook);
      response.on('finish', () => (hook.answered = true));
      const send = () => response.writeHead(answer.status, answer.headers).end();
      if (!answer.delayMs) return void send();
      const timer = setTimeout(() => {
        this.held.delete(timer);
        send();
      }, answer.delayMs);
      this.held.add(timer);
      // The sender gave up or went away while the answer was held: there is no one to answer.
      response.once('close', () => {
        clearTimeout(timer);
        this.held.delete(timer);
      });
    });
  }
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { MetricsService } from './metrics.service';

/** Prometheus's default `metrics_path`, so a scrape job needs no more than the address. */
export const METRICS_PATH = '/metrics';

const PLAIN_TEXT = { 'Content-Type': 'text/plain; charset=utf-8' };

/**
 * Serves the metrics on METRICS_PORT, a port of their own, and nowhere else: they name every
 * route, the operator's included, and how much each is used, which is none of the business of
 * whoever can reach the API. Without METRICS_PORT they are not served at all. A bare node:http
 * listener: all it answers is `GET /metrics`, none of the API's pipeline applies. It listens on
 * every interface, as the API does, so which networks reach it is the deployment's choice (a port
 * published or not, a firewall).
 */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MetricsListener');
  private server?: Server;

  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Called by the HTTP set-up (configureApp), not at bootstrap: the CLI runs the same module,
   * beside a service that already holds METRICS_PORT.
   */
  listenWithApp(): void {
    if (this.config.metricsPort === undefined) return;
    this.server = createServer((request, response) => void this.answer(request, response));
  }

  /** Listens as the application starts, before the API: a port that is taken stops the start, naming the setting. */
  async onApplicationBootstrap(): Promise<void> {
    const server = this.server;
    if (!server) return;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.config.metricsPort, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      throw new Error(`METRICS_PORT ${this.config.metricsPort}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Where the metrics are served (the system's choice when METRICS_PORT is 0); undefined when they are not. */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null | undefined)?.port;
  }

  /**
   * Closes with the application, after the API has drained (main.ts), so that the drain can be
   * watched to its end. A scrape still running is cut: Prometheus counts it failed and scrapes again.
   */
  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server?.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.url?.split('?')[0] !== METRICS_PATH) {
      response.writeHead(404, PLAIN_TEXT).end(`Not found: the metrics are at ${METRICS_PATH}\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response
        .writeHead(405, { ...PLAIN_TEXT, Allow: 'GET, HEAD' })
        .end(`${request.method} is not allowed: GET, HEAD\n`);
      return;
    }
    try {
      const text = await this.metrics.registry.metrics();
      response.writeHead(200, { 'Content-Type': this.metrics.registry.contentType }).end(text);
    } catch (error) {
      this.logger.error({ err: error }, 'metrics could not be collected');
      response.writeHead(500, PLAIN_TEXT).end('The metrics could not be collected\n');
    }
  }
}

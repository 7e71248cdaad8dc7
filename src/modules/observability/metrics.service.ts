import { Injectable } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { isCatchAllRoute } from '../../common/http/allowed-methods';

/**
 * Prometheus metrics: request counts and latency by method, route pattern and status; requests the
 * HTTP parser refused; requests served unlimited while the rate-limit store was failing.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly rateLimitStoreErrors = new Counter({
    name: 'rate_limit_store_errors_total',
    help: 'Requests served without rate limiting because the rate-limit store (Redis) failed',
    registers: [this.registry],
  });
  private readonly httpParserRefusals = new Counter({
    name: 'http_parser_refusals_total',
    help: 'Requests refused by the HTTP parser before routing (malformed, headers too large, timed out)',
    labelNames: ['status'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  countRateLimitStoreError(): void {
    this.rateLimitStoreErrors.inc();
  }

  countHttpParserRefusal(status: number): void {
    this.httpParserRefusals.inc({ status: String(status) });
  }

  /** Express middleware; the route label is the matched pattern (`/v1/members/:id`), never the raw path. */
  middleware(): RequestHandler {
    return (request: Request, response: Response, next: NextFunction) => {
      const started = process.hrtime.bigint();
      response.once('finish', () => {
        const route = request.route as { path?: string; methods?: Record<string, boolean> } | undefined;
        // Catch-all routes (Nest's not-found handler, middleware bound to every route) are not a route.
        const routePath = isCatchAllRoute(route) ? undefined : route?.path;
        const labels = {
          method: request.method,
          route: routePath ? `${request.baseUrl}${routePath}` : 'unmatched',
          status: String(response.statusCode),
        };
        this.requests.inc(labels);
        this.latency.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      });
      next();
    };
  }
}

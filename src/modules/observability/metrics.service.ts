import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { RequestObserver } from '../../common/http/request-observer';

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

  /** Counts each request once answered; the route label is its pattern (`/v1/members/:id`), never the raw path. */
  observer(): RequestObserver {
    return (request, response) => {
      const started = process.hrtime.bigint();
      response.once('finish', () => {
        const labels = {
          method: request.method,
          route: (request.route as { path: string } | undefined)?.path ?? 'unmatched',
          status: String(response.statusCode),
        };
        this.requests.inc(labels);
        this.latency.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      });
    };
  }
}

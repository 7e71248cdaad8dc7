import { METRICS_PATH, MetricsListener } from '../../src/modules/observability/metrics-listener';
import type { TestApp } from './test-app';

/** The address Prometheus would scrape: the metrics' own port, which a test app has with `METRICS_PORT: '0'`. */
export function metricsUrl(t: TestApp): string {
  const port = t.app.get(MetricsListener).port;
  if (port === undefined) throw new Error("the test app serves no metrics: create it with env { METRICS_PORT: '0' }");
  return `http://127.0.0.1:${port}${METRICS_PATH}`;
}

/** The metrics text, scraped over HTTP from their own port. */
export async function scrapeMetrics(t: TestApp): Promise<string> {
  const response = await fetch(metricsUrl(t));
  if (response.status !== 200) throw new Error(`scraping ${metricsUrl(t)} answered ${response.status}`);
  return response.text();
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config/app-config';
import { MetricsListener } from './metrics-listener';
import { MetricsService } from './metrics.service';

function listenerOn(metricsPort: number): MetricsListener {
  return new MetricsListener(new MetricsService(), loadConfig({ METRICS_PORT: String(metricsPort) }));
}

describe('MetricsListener', () => {
  it('stops the start when METRICS_PORT is taken, naming the setting', async () => {
    const taker: Server = createServer();
    await new Promise<void>((resolve) => taker.listen(0, resolve));
    const { port } = taker.address() as AddressInfo;
    try {
      const listener = listenerOn(port);
      listener.listenWithApp();
      await expect(listener.onApplicationBootstrap()).rejects.toThrow(`METRICS_PORT ${port}: listen EADDRINUSE`);
      expect(listener.port).toBeUndefined();
      await listener.onApplicationShutdown();
    } finally {
      await new Promise((resolve) => taker.close(resolve));
    }
  });

  it('listens only when the HTTP set-up asks: the CLI, same module, leaves the port to the running service', async () => {
    const listener = listenerOn(0);
    await listener.onApplicationBootstrap();
    expect(listener.port).toBeUndefined();
    await listener.onApplicationShutdown();
  });
});

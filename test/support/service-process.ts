import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './byte-http';
import { TEST_WEBHOOK_ALLOWED_NETWORKS } from './loopback';
import { killPostgres } from './processes';

const ROOT = path.resolve(__dirname, '..', '..');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/**
 * The service as it runs in production: `src/main.ts` in a Node process of its own (compiled on
 * load by register-ts.js), with its embedded PostgreSQL in a data directory of the test's own
 * unless DATABASE_URL is given, its webhook deliveries held to loopback (WEBHOOK_ALLOWED_NETWORKS)
 * unless `env` says otherwise. Its standard output (the banner, shutdown messages) is kept.
 */
export class ServiceProcess {
  private output = '';
  readonly exited: Promise<Exit>;

  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    readonly dataDir: string,
  ) {
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
  }

  /** Starts the service and resolves once its banner says it is ready (within `readyTimeoutMs`: longer on a machine under load). */
  static async start(
    env: Record<string, string>,
    dataDir?: string,
    { readyTimeoutMs = 45_000 } = {},
  ): Promise<ServiceProcess> {
    const port = await freePort();
    const dir = dataDir ?? mkdtempSync(path.join(tmpdir(), 'records-test-service-'));
    const child = spawn(
      process.execPath,
      ['-r', path.join(__dirname, 'register-ts.js'), path.join(ROOT, 'src', 'main.ts')],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          PORT: String(port),
          DATA_DIR: dir,
          EMBEDDED_POSTGRES_PORT: String(await freePort()),
          LOG_LEVEL: 'warn',
          WEBHOOK_ALLOWED_NETWORKS: TEST_WEBHOOK_ALLOWED_NETWORKS,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const service = new ServiceProcess(child, `http://127.0.0.1:${port}`, dir);
    try {
      await service.waitForOutput(/ready in [\d.]+s[\s\S]*(Admin token|Operator API)/, readyTimeoutMs);
    } catch (error) {
      await service.dispose();
      throw error;
    }
    return service;
  }

  get stdout(): string {
    return this.output;
  }

  get pid(): number {
    return this.child.pid!;
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Resolves when the output matches `pattern`; fails if the process exits first or time runs out. */
  async waitForOutput(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => (exited = true));
    for (;;) {
      const match = pattern.exec(this.output);
      if (match) return match;
      if (exited || Date.now() > deadline) {
        throw new Error(
          `${exited ? 'the service exited' : 'timed out'} before printing ${pattern}; it printed:\n${this.output}`,
        );
      }
      await sleep(20);
    }
  }

  /** Kills the service if it still runs (and the embedded PostgreSQL it would orphan), deletes its data. */
  async dispose(options: { keepData?: boolean } = {}): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
    killPostgres(path.join(this.dataDir, 'postgres'));
    if (!options.keepData) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from './byte-http';
import type { OwnPostgresCommand, OwnPostgresReply } from './own-postgres.server';
import { killPostgres } from './processes';

/**
 * A PostgreSQL server of the test's own (embedded, in a temporary directory, on a free port, the
 * schema migrated) that the test may stop, crash and start again under load. It runs under a
 * small process of its own (own-postgres.server.ts).
 */
export class OwnPostgres {
  private running = false;

  private constructor(
    private readonly server: ChildProcess,
    private readonly dataDir: string,
    private readonly port: number,
    readonly url: string,
  ) {
    this.running = true;
  }

  static async start(): Promise<OwnPostgres> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'records-test-own-pg-'));
    const server = fork(path.join(__dirname, 'own-postgres.server.ts'), [], {
      execArgv: ['-r', path.join(__dirname, 'register-ts.js')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      const port = await freePort();
      const { url } = await OwnPostgres.ask(server, { command: 'start', dataDir, port, migrate: true });
      return new OwnPostgres(server, dataDir, port, url!);
    } catch (error) {
      server.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    }
  }

  private static ask(server: ChildProcess, command: OwnPostgresCommand): Promise<{ url?: string }> {
    return new Promise((resolve, reject) => {
      const onExit = () => reject(new Error('the PostgreSQL supervisor exited'));
      server.once('exit', onExit);
      server.once('message', (reply: OwnPostgresReply) => {
        server.off('exit', onExit);
        if (reply.ok) resolve(reply);
        else reject(new Error(`PostgreSQL ${command.command} failed: ${reply.error}`));
      });
      server.send(command);
    });
  }

  /** A fast shutdown: sessions are terminated (57P01), then connections are refused. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await OwnPostgres.ask(this.server, { command: 'stop' });
  }

  /** A crash: the postmaster and every backend killed at once, as if the machine went away. */
  kill(): void {
    this.running = false;
    killPostgres(path.join(this.dataDir, 'postgres'));
  }

  /** Starts the server again on the same port and data (with crash recovery after kill). */
  async restart(): Promise<void> {
    if (this.running) return;
    await OwnPostgres.ask(this.server, { command: 'start', dataDir: this.dataDir, port: this.port, migrate: false });
    this.running = true;
  }

  /** Stops the server (killing it if it will not stop), its supervisor, and deletes its data. */
  async dispose(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([this.stop(), new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
    } finally {
      clearTimeout(timer);
      this.kill();
      this.server.kill('SIGKILL');
      rmSync(this.dataDir, { recursive: true, force: true });
    }
  }
}

import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Client } from 'pg';
import { OwnConnections } from './own-connections';

/** How long to wait before connecting again to take back the kept locks. */
const RETAKE_DELAY_MS = 1000;

/** Held from `claim` until `release`; see SessionLocks. */
export interface SessionLock {
  release(): Promise<void>;
}

/**
 * Named locks that outlast any transaction, for a request that prepares its write with slow calls
 * (storage) before it opens one, such as an Idempotency-Key's claim (IdempotentRequests): a
 * duplicate arriving meanwhile, on any instance, finds the name locked, while the request holds
 * none of the pooled connections. A lock is a session-level advisory lock on one connection of
 * this process's own, outside the pool (which is why this, and not Transactions, runs its
 * statements: a pooled connection returns to the pool with its session's locks), so a crash frees
 * it as it would roll back a transaction. A session may take its own lock again, so the process
 * also keeps the names it holds. If that connection breaks, its locks are gone while their
 * requests still run: a caller re-checks under a transaction's lock before it writes. A lock held
 * for a process's life (`keep`) is taken again on the next session.
 */
@Injectable()
export class SessionLocks implements OnApplicationShutdown {
  private readonly logger = new Logger('SessionLocks');
  private readonly held = new Set<string>();
  /** The names of `keep`: taken again on each new session. */
  private readonly kept = new Set<string>();
  /** Those of them the current session holds (a session holds a lock taken twice until it is released twice). */
  private readonly keptHere = new Set<string>();
  private retaking?: NodeJS.Timeout;
  private closed = false;
  private session?: Promise<Client>;
  /** The last statement sent on the session: each next one waits for it (see inTurn). */
  private previous: Promise<unknown> = Promise.resolve();

  constructor(private readonly connections: OwnConnections) {}

  /** The lock named `name`, or undefined when another request holds it. */
  async claim(name: string): Promise<SessionLock | undefined> {
    if (this.held.has(name)) return undefined;
    this.held.add(name);
    try {
      const session = await this.connected();
      const { rows } = await this.inTurn(() =>
        session.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked`, [name]),
      );
      if (!rows[0].locked) {
        this.held.delete(name);
        return undefined;
      }
      return { release: () => this.unlock(session, name) };
    } catch (error) {
      this.held.delete(name);
      throw error;
    }
  }

  /**
   * The lock named `name` for as long as the process runs (a worker's liveness): taken again as
   * soon as a new session can be made after the one holding it is lost. Throws when another
   * session holds it now.
   */
  async keep(name: string): Promise<SessionLock> {
    const lock = await this.claim(name);
    if (!lock) throw new Error(`the lock ${name} is held elsewhere`);
    this.kept.add(name);
    this.keptHere.add(name);
    return {
      release: async () => {
        this.kept.delete(name);
        // Not yet taken back on a new session: there is nothing to unlock.
        const session = this.keptHere.delete(name) ? await this.session?.catch(() => undefined) : undefined;
        if (session) await this.unlock(session, name);
        else this.held.delete(name);
      },
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retaking);
    const session = this.session;
    this.session = undefined;
    await session?.then((client) => client.end()).catch(() => undefined);
  }

  private async unlock(session: Client, name: string): Promise<void> {
    try {
      await this.inTurn(() => session.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [name]));
    } catch (error) {
      // A lock that may still be held would block its name until the process ends: end the session
      // and with it every claim on it.
      this.logger.warn({ err: error }, 'could not release a session lock; reconnecting');
      this.drop(session);
    } finally {
      this.held.delete(name);
    }
  }

  private connected(): Promise<Client> {
    this.session ??= this.connect().catch((error: unknown) => {
      this.session = undefined;
      throw error;
    });
    return this.session;
  }

  private async connect(): Promise<Client> {
    const client = this.connections.client('session locks');
    client.on('error', () => this.drop(client));
    client.on('end', () => this.drop(client));
    await client.connect();
    return client;
  }

  /**
   * Sends one statement once the session's previous one has been answered: concurrent requests
   * claim and release on the one session, and pg queues a statement sent while another runs only
   * with a deprecation warning (pg 9 will refuse it). The server runs a session's statements one
   * at a time anyway.
   */
  private inTurn<T>(statement: () => Promise<T>): Promise<T> {
    const result = this.previous.then(statement, statement);
    this.previous = result.catch(() => undefined);
    return result;
  }

  /** Forgets `client` if it is the current session, so that the next claim connects anew; the kept locks are taken again on it. */
  private drop(client: Client): void {
    void this.session?.then(
      (current) => {
        if (current !== client) return;
        this.session = undefined;
        this.keptHere.clear();
        current.end().catch(() => undefined);
        if (this.kept.size > 0) this.retakeSoon();
      },
      () => undefined,
    );
  }

  private retakeSoon(): void {
    if (this.closed || this.retaking) return;
    this.retaking = setTimeout(() => {
      this.retaking = undefined;
      void this.retake();
    }, RETAKE_DELAY_MS);
    this.retaking.unref();
  }

  /** Takes the kept locks on a new session; tries again later while it cannot connect or another session holds one (a recovery looking). */
  private async retake(): Promise<void> {
    try {
      const session = await this.connected();
      for (const name of this.kept) {
        if (this.keptHere.has(name)) continue;
        const { rows } = await this.inTurn(() =>
          session.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked`, [name]),
        );
        if (!rows[0].locked) throw new Error(`the lock ${name} is held by another session for now`);
        this.keptHere.add(name);
      }
      this.logger.log(`took back ${this.kept.size} lock(s) after the session was lost`);
    } catch (error) {
      this.logger.warn(`could not take back the kept locks yet: ${(error as Error).message}`);
      this.retakeSoon();
    }
  }
}

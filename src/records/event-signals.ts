import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Client } from 'pg';
import { OwnConnections } from '../database/own-connections';

/** The channel an append notifies, with its workspace's id as the payload (EventsRepository). */
export const EVENTS_APPENDED_CHANNEL = 'events_appended';

/** How long after a lost connection the listener connects again. */
const RECONNECT_MS = 1000;

/**
 * Called with the workspace whose events were appended; with undefined when the process may have
 * missed some (it was not listening for a while): anything may have been appended anywhere.
 */
export type AppendListener = (workspaceId: string | undefined) => void;

/**
 * The appends' signal, in this process: one LISTEN on `events_appended` for the whole process (on
 * a session of its own, on the direct URL when there is one: a transaction-mode pooler does not
 * keep a LISTEN), fanned out here to every listener, so that a reader waiting for events holds no
 * connection of its own. Connected at the first subscription; once lost, connected again a moment
 * later, the listeners told that they may have missed appends.
 *
 * A notification comes after the append's commit, and to every session listening, the appender's
 * own instance's included; PostgreSQL folds the same payload notified twice in one transaction.
 */
@Injectable()
export class EventSignals implements OnModuleDestroy {
  private readonly logger = new Logger('EventSignals');
  private readonly listeners = new Set<AppendListener>();
  private client?: Client;
  private connecting?: Promise<void>;
  private isListening = false;
  private closed = false;
  private reconnect?: NodeJS.Timeout;

  constructor(private readonly connections: OwnConnections) {}

  /** Whether every append since the last `undefined` call to the listeners will be signalled. */
  get listening(): boolean {
    return this.isListening;
  }

  /** Calls `listener` on each append from now on, until the answered function is called. */
  subscribe(listener: AppendListener): () => void {
    this.listeners.add(listener);
    this.listen();
    return () => this.listeners.delete(listener);
  }

  /** Signals an append of this process's at once, before its notification comes back. */
  appended(workspaceId: string): void {
    this.emit(workspaceId);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnect);
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.isListening = false;
    await client?.end().catch(() => undefined);
  }

  private listen(): void {
    if (this.client || this.connecting || this.closed) return;
    this.connecting = this.connect().finally(() => (this.connecting = undefined));
  }

  private async connect(): Promise<void> {
    const client = this.connections.client('event signals');
    client.on('notification', (message) => {
      if (message.channel === EVENTS_APPENDED_CHANNEL && message.payload) this.emit(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_APPENDED_CHANNEL}`);
      if (this.client !== client) return;
      this.isListening = true;
      // What was read before this LISTEN took effect may have missed appends: from now on none is missed.
      this.emit(undefined);
    } catch (error) {
      this.lost(client, error as Error);
    }
  }

  private lost(client: Client, error?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.isListening = false;
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.logger.warn(
      `lost the appends' signal${error ? `: ${error.message}` : ''}; listening again in ${RECONNECT_MS} ms`,
    );
    this.emit(undefined);
    this.reconnect = setTimeout(() => this.listen(), RECONNECT_MS);
    this.reconnect.unref();
  }

  private emit(workspaceId: string | undefined): void {
    for (const listener of this.listeners) listener(workspaceId);
  }
}

import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Client } from 'pg';
import { OwnConnections } from './own-connections';

/** How long after a lost connection the listener connects again. */
const RECONNECT_MS = 1000;

/**
 * Called with a notification's payload; with undefined when the process may have missed some of
 * its channel's (it was not listening for a while, or has just begun to).
 */
export type NotificationListener = (payload: string | undefined) => void;

/** A channel's name as LISTEN takes it: the service's own constants, never a caller's text. */
function channelSql(channel: string): string {
  if (!/^[a-z_]+$/.test(channel)) throw new Error(`"${channel}" is no notification channel of the service's`);
  return channel;
}

/**
 * PostgreSQL's notifications, in this process: one session LISTENs for the whole process (on a
 * connection of its own, on the direct URL when there is one: a transaction-mode pooler does not
 * keep a LISTEN), fanned out here to every listener of each channel, so that whoever waits for a
 * signal holds no connection of its own. A channel is listened to from its first subscription;
 * the session is connected at the first, and once lost, connected again a moment later, every
 * listener told that it may have missed notifications.
 *
 * A notification comes after its transaction's commit, to every session listening, the
 * notifier's own included; PostgreSQL folds the same payload notified twice in one transaction.
 */
@Injectable()
export class Notifications implements OnModuleDestroy {
  private readonly logger = new Logger('Notifications');
  private readonly listeners = new Map<string, Set<NotificationListener>>();
  /** The channels the session has LISTENed to since it connected. */
  private readonly heard = new Set<string>();
  private client?: Client;
  /** The session's connect and LISTENs so far, each after the one before (pg warns of a query sent while another runs). */
  private ready: Promise<void> = Promise.resolve();
  private closed = false;
  private reconnect?: NodeJS.Timeout;

  constructor(private readonly connections: OwnConnections) {}

  /** Whether every notification of `channel` since the last `undefined` call to its listeners will come. */
  listening(channel: string): boolean {
    return this.heard.has(channel);
  }

  /** Calls `listener` on each notification of `channel` from now on, until the answered function is called. */
  subscribe(channel: string, listener: NotificationListener): () => void {
    channelSql(channel);
    let listeners = this.listeners.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.listeners.set(channel, listeners);
    }
    listeners.add(listener);
    if (this.client) this.listenTo(this.client, channel);
    else this.connect();
    return () => listeners.delete(listener);
  }

  /** Tells this process's listeners of `channel` at once, before the notification comes back. */
  emit(channel: string, payload: string | undefined): void {
    for (const listener of this.listeners.get(channel) ?? []) listener(payload);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnect);
    await this.ready;
    const client = this.client;
    this.client = undefined;
    this.heard.clear();
    await client?.end().catch(() => undefined);
  }

  private connect(): void {
    if (this.client || this.closed) return;
    const client = this.connections.client('notifications');
    client.on('notification', (message) => {
      if (this.heard.has(message.channel)) this.emit(message.channel, message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    this.client = client;
    this.ready = client.connect().then(
      () => undefined,
      (error: Error) => this.lost(client, error),
    );
    for (const channel of this.listeners.keys()) this.listenTo(client, channel);
  }

  private listenTo(client: Client, channel: string): void {
    this.ready = this.ready
      .then(async () => {
        if (this.client !== client || this.heard.has(channel)) return;
        await client.query(`LISTEN ${channelSql(channel)}`);
        if (this.client !== client) return;
        this.heard.add(channel);
        // What was read before this LISTEN took effect may have missed notifications: from now on none is missed.
        this.emit(channel, undefined);
      })
      .catch((error: Error) => this.lost(client, error));
  }

  private lost(client: Client, error?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.heard.clear();
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.logger.warn(
      `lost the notifications${error ? `: ${error.message}` : ''}; listening again in ${RECONNECT_MS} ms`,
    );
    for (const channel of this.listeners.keys()) this.emit(channel, undefined);
    this.reconnect = setTimeout(() => this.connect(), RECONNECT_MS);
    this.reconnect.unref();
  }
}

import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Client } from 'pg';
import { OwnConnections } from './own-connections';

/** What the session is for, in its name (OwnConnections). */
export const NOTIFICATIONS_PURPOSE = 'notifications';

/** How long after a lost connection the listener connects again. */
const RECONNECT_MS = 1000;
/**
 * How long a notification waits for others to be sent with it: each sending is a transaction, and
 * PostgreSQL commits the transactions that notify one at a time, all databases' (a lock it holds
 * from its queue's write to the commit's end).
 */
const NOTIFY_GATHER_MS = 5;

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
 * A notification comes after its transaction's commit, to every session listening. Notifying
 * goes through the same session, after the change it announces has committed, not in its
 * transaction (notify): a NOTIFY in a write's transaction would hold PostgreSQL's notification
 * lock through the write's commit, which makes all writes that notify commit one at a time (a
 * quarter of the inserts per second, measured). What the session notifies reaches this process's
 * listeners through emit, not again as a notification.
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
  /** What notify was asked to send and has not been yet, per channel. */
  private readonly unsent = new Map<string, Set<string>>();
  private sendTimer?: NodeJS.Timeout;
  /** The notifications being sent, if any: one sending at a time, the next gathering meanwhile. */
  private sending?: Promise<void>;

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

  /**
   * Notifies `payload` on `channel`: this process's listeners at once, the other processes'
   * within NOTIFY_GATHER_MS, with whatever else is notified meanwhile, in one transaction. A
   * notification to the others can be lost (this process ends first, its session is down): a
   * listener must not trust what it knows from them for ever.
   */
  notify(channel: string, payload: string): void {
    channelSql(channel);
    this.emit(channel, payload);
    let payloads = this.unsent.get(channel);
    if (!payloads) {
      payloads = new Set();
      this.unsent.set(channel, payloads);
    }
    payloads.add(payload);
    this.sendSoon();
  }

  async onModuleDestroy(): Promise<void> {
    clearTimeout(this.sendTimer);
    await this.sending;
    if (this.client) await this.send();
    this.closed = true;
    clearTimeout(this.reconnect);
    await this.ready;
    const client = this.client;
    this.client = undefined;
    this.heard.clear();
    await client?.end().catch(() => undefined);
  }

  private emit(channel: string, payload: string | undefined): void {
    for (const listener of this.listeners.get(channel) ?? []) listener(payload);
  }

  private sendSoon(): void {
    if (this.sending || this.sendTimer || this.closed) return;
    this.sendTimer = setTimeout(() => {
      this.sendTimer = undefined;
      this.sending = this.send().finally(() => {
        this.sending = undefined;
        if (this.unsent.size > 0) this.sendSoon();
      });
    }, NOTIFY_GATHER_MS);
    this.sendTimer.unref();
  }

  /** Sends what is unsent, in one transaction, after the session's LISTENs; what fails to go is lost (see notify). */
  private async send(): Promise<void> {
    const channels: string[] = [];
    const payloads: string[] = [];
    for (const [channel, unsent] of this.unsent) {
      for (const payload of unsent) {
        channels.push(channel);
        payloads.push(payload);
      }
    }
    this.unsent.clear();
    if (channels.length === 0) return;
    this.connect();
    const client = this.client;
    if (!client) return;
    const sent = this.ready.then(async () => {
      if (this.client !== client) return;
      await client.query(
        'SELECT pg_notify(n.channel, n.payload) FROM unnest($1::text[], $2::text[]) AS n(channel, payload)',
        [channels, payloads],
      );
    });
    this.ready = sent.catch((error: Error) => this.lost(client, error));
    await this.ready;
  }

  private connect(): void {
    if (this.client || this.closed) return;
    const client = this.connections.client(NOTIFICATIONS_PURPOSE);
    let ownPid: number | undefined;
    client.on('notification', (message) => {
      // What it notified was emitted here when it was asked to be.
      if (message.processId === ownPid) return;
      if (this.heard.has(message.channel)) this.emit(message.channel, message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    this.client = client;
    this.ready = client
      .connect()
      // Its transactions write nothing that needs the disk: its commits need not wait for it.
      .then(() =>
        client.query<{ pid: number }>(`SELECT set_config('synchronous_commit', 'off', false), pg_backend_pid() AS pid`),
      )
      .then(
        ({ rows }) => void (ownPid = rows[0].pid),
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

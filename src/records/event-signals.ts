import { Injectable } from '@nestjs/common';
import { Notifications, type NotificationListener } from '../database/notifications';

/** The channel an append is signalled on once committed, with its workspace's id as the payload (EventsRepository). */
export const EVENTS_APPENDED_CHANNEL = 'events_appended';

/** How long a process trusts that no signal means no append: a head it keeps is looked for again after this long. */
export const SIGNALS_TRUSTED_MS = 1000;

/**
 * Called with the workspace whose events were appended; with undefined when the process may have
 * missed some (it was not listening for a while): anything may have been appended anywhere.
 */
export type AppendListener = NotificationListener;

/**
 * The appends' signal, in this process (Notifications, one LISTEN per process): a reader waiting
 * for events holds no connection of its own, and an append of this process's is signalled here at
 * its commit, to the others just after. A signal from another process can be lost (it ended
 * between its commit and its notification): what a process knows from them, it trusts for
 * SIGNALS_TRUSTED_MS.
 */
@Injectable()
export class EventSignals {
  constructor(private readonly notifications: Notifications) {}

  /** Whether every append since the last `undefined` call to the listeners will be signalled. */
  get listening(): boolean {
    return this.notifications.listening(EVENTS_APPENDED_CHANNEL);
  }

  /** Calls `listener` on each append from now on, until the answered function is called. */
  subscribe(listener: AppendListener): () => void {
    return this.notifications.subscribe(EVENTS_APPENDED_CHANNEL, listener);
  }

  /** Signals a committed append of this process's: here at once, to the other processes moments later. */
  appended(workspaceId: string): void {
    this.notifications.notify(EVENTS_APPENDED_CHANNEL, workspaceId);
  }
}

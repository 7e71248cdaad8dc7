import { Injectable } from '@nestjs/common';
import { Notifications, type NotificationListener } from '../database/notifications';

/** The channel an append notifies, with its workspace's id as the payload (EventsRepository). */
export const EVENTS_APPENDED_CHANNEL = 'events_appended';

/**
 * Called with the workspace whose events were appended; with undefined when the process may have
 * missed some (it was not listening for a while): anything may have been appended anywhere.
 */
export type AppendListener = NotificationListener;

/**
 * The appends' signal, in this process (Notifications, one LISTEN per process): a reader waiting
 * for events holds no connection of its own, and an append of this process's is signalled here at
 * its commit, before its notification comes back.
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

  /** Signals an append of this process's at once, before its notification comes back. */
  appended(workspaceId: string): void {
    this.notifications.emit(EVENTS_APPENDED_CHANNEL, workspaceId);
  }
}

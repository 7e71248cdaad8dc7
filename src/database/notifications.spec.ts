import { Client } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDatabaseUrl } from '../../test/support/test-app';
import { Notifications } from './notifications';
import type { OwnConnections } from './own-connections';

const CHANNEL = 'notifications_spec';

/** A process's Notifications on the test database, and how many of its statements notified. */
function processNotifications() {
  const sent = { notifying: 0 };
  const connections = {
    client: (purpose: string) => {
      const client = new Client({ connectionString: testDatabaseUrl(), application_name: purpose });
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: typeof query }).query = (...args: unknown[]) => {
        if (typeof args[0] === 'string' && args[0].includes('pg_notify')) sent.notifying += 1;
        return query(...args);
      };
      return client;
    },
  } as unknown as OwnConnections;
  return { notifications: new Notifications(connections), sent };
}

/** Resolves once `heard` holds `count` payloads, or after 2 s. */
async function heardAtLeast(heard: unknown[], count: number): Promise<void> {
  for (let waited = 0; heard.length < count && waited < 2000; waited += 10) await sleep(10);
}

describe('Notifications', () => {
  const made: Notifications[] = [];
  const make = () => {
    const one = processNotifications();
    made.push(one.notifications);
    return one;
  };
  afterEach(async () => {
    for (const notifications of made.splice(0)) await notifications.onModuleDestroy();
  });

  /** `notifications` listening to CHANNEL: what it heard, once its LISTEN took effect. */
  async function listening(notifications: Notifications): Promise<(string | undefined)[]> {
    const heard: (string | undefined)[] = [];
    notifications.subscribe(CHANNEL, (payload) => heard.push(payload));
    // The first call (undefined) says the LISTEN took effect.
    await heardAtLeast(heard, 1);
    expect(heard).toEqual([undefined]);
    heard.length = 0;
    return heard;
  }

  it("tells this process's listeners at once and once, another process's after, the payloads of a moment in one statement", async () => {
    const writer = make();
    const reader = make();
    const heardHere = await listening(writer.notifications);
    const heardThere = await listening(reader.notifications);

    for (let index = 0; index < 20; index++) writer.notifications.notify(CHANNEL, `ws_${index % 5}`);
    const payloads = Array.from({ length: 20 }, (_, index) => `ws_${index % 5}`);
    expect(heardHere).toEqual(payloads);
    expect(heardThere).toEqual([]);

    await heardAtLeast(heardThere, 5);
    // Sent once each, in one statement; not told here a second time when it comes back.
    await sleep(100);
    expect([...heardThere].sort()).toEqual(['ws_0', 'ws_1', 'ws_2', 'ws_3', 'ws_4']);
    expect(heardHere).toEqual(payloads);
    expect(writer.sent.notifying).toBe(1);
  });

  it('sends what it has not sent yet when the process ends', async () => {
    const writer = make();
    const reader = make();
    await listening(writer.notifications);
    const heardThere = await listening(reader.notifications);

    writer.notifications.notify(CHANNEL, 'last words');
    await writer.notifications.onModuleDestroy();
    await heardAtLeast(heardThere, 1);
    expect(heardThere).toEqual(['last words']);
  });

  it('connects to notify when it listens to nothing yet', async () => {
    const writer = make();
    const reader = make();
    const heardThere = await listening(reader.notifications);

    writer.notifications.notify(CHANNEL, 'from a writer that never listened');
    await heardAtLeast(heardThere, 1);
    expect(heardThere).toEqual(['from a writer that never listened']);
  });
});

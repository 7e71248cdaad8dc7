import type { Client } from 'pg';
import type { OwnConnections } from './own-connections';
import { SessionLocks } from './session-locks';

/** A session that answers each statement a moment later, and counts how many it was sent at once. */
function slowSession() {
  let running = 0;
  const seen = { mostAtOnce: 0, statements: 0 };
  const client = {
    on: () => client,
    connect: async () => undefined,
    end: async () => undefined,
    query: async (sql: string) => {
      running += 1;
      seen.statements += 1;
      seen.mostAtOnce = Math.max(seen.mostAtOnce, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running -= 1;
      return { rows: [{ locked: !sql.includes('unlock') }] };
    },
  };
  const connections = { client: () => client as unknown as Client } as unknown as OwnConnections;
  return { connections, seen };
}

describe('SessionLocks', () => {
  it('sends the claims and releases of concurrent requests on its one session in turn, never two at once', async () => {
    // pg queues a statement sent while another runs only with a deprecation warning, and pg 9 refuses it.
    const { connections, seen } = slowSession();
    const locks = new SessionLocks(connections);
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const lock = await locks.claim(`name-${i}`);
        await lock!.release();
      }),
    );
    expect(seen).toEqual({ mostAtOnce: 1, statements: 40 });
  });

  it('goes on with the next statement after one that failed', async () => {
    const { connections, seen } = slowSession();
    const locks = new SessionLocks(connections);
    const session = connections.client('session locks') as unknown as { query: (sql: string) => Promise<unknown> };
    const answer = session.query;
    session.query = async () => {
      session.query = answer;
      throw new Error('connection lost');
    };
    const [failed, claimed] = await Promise.allSettled([locks.claim('first'), locks.claim('second')]);
    expect(failed.status).toBe('rejected');
    expect(claimed).toMatchObject({ status: 'fulfilled', value: expect.anything() });
    expect(seen.statements).toBe(1);
  });
});

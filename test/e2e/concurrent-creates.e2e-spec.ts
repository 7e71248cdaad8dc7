import { DataSource } from 'typeorm';
import { apiSuite } from '../support/api-suite';

const PARALLEL = 32;
const DEADLINE_MS = 15_000;

/**
 * A type's record counter, and the link counter of the member every note is `$createdBy`, must not
 * make creates in one workspace take turns: each create bumps a slot that no uncommitted create
 * holds, or adds one. Here every slot both counters have is held by a transaction that stays open
 * while 32 creates run; with a single counter row they would all wait for it to end.
 */
describe('creates in one workspace', () => {
  const suite = apiSuite();

  it(`${PARALLEL} in parallel finish while every counter slot is held by an uncommitted transaction, and are all counted`, async () => {
    expect((await suite.post('/v1/notes', { fields: { $title: 'First' } })).status).toBe(200);
    const holder = suite.t.app.get(DataSource).createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      const held = (await holder.query(
        `SELECT slot FROM record_counts WHERE workspace_id = $1 AND object_type = 'note' FOR UPDATE`,
        [suite.ws.workspaceId],
      )) as unknown[];
      expect(held.length).toBeGreaterThan(0);
      const heldLinks = (await holder.query(
        `SELECT slot FROM record_link_counts WHERE workspace_id = $1 AND link = 'note:$createdBy' AND target_id = $2 FOR UPDATE`,
        [suite.ws.workspaceId, suite.ws.memberId],
      )) as unknown[];
      expect(heldLinks.length).toBeGreaterThan(0);

      const creates = Promise.all(
        Array.from({ length: PARALLEL }, (_unused, i) =>
          suite.post('/v1/notes', { fields: { $title: `Parallel ${i}` } }),
        ),
      );
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), DEADLINE_MS)));
      const outcome = await Promise.race([creates, deadline]);
      clearTimeout(timer);
      await holder.commitTransaction();
      expect(outcome === 'waited' ? outcome : outcome.map((response) => response.status)).toEqual(
        Array(PARALLEL).fill(200),
      );
    } finally {
      await holder.release();
    }

    const list = await suite.get('/v1/notes?limit=1');
    expect(list.body.totalCount).toBe(PARALLEL + 1);
    const mine = await suite.get(`/v1/notes?limit=1&$createdBy=${suite.ws.memberId}`);
    expect(mine.body.totalCount).toBe(PARALLEL + 1);
  });
});

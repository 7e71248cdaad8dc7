import { DataSource } from 'typeorm';
import { Transactions } from '../../src/database/transactions';
import { WorkspacesRepository } from '../../src/records/workspaces.repository';
import { Gate, sleep } from '../support/concurrency';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/** The workspace methods the records core uses to version and lock a workspace's definitions (DefinitionsService). */
describe('workspaces repository', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let workspaces: WorkspacesRepository;
  let transactions: Transactions;

  beforeAll(async () => {
    t = await createTestApp();
    ws = await createWorkspace(t.http);
    workspaces = t.app.get(WorkspacesRepository);
    transactions = t.app.get(Transactions);
  });
  afterAll(() => t.close());

  it('tells whether a workspace exists', async () => {
    expect(await workspaces.exists(ws.workspaceId)).toBe(true);
    expect(await workspaces.exists('wks_01AAAAAAAAAAAAAAAAAAAAAAAA')).toBe(false);
  });

  it('starts a workspace at metadata version 0 and increments it by one per change', async () => {
    const fresh = await createWorkspace(t.http);
    expect(await workspaces.metadataVersion(fresh.workspaceId)).toBe(0);
    await workspaces.incrementMetadataVersion(fresh.workspaceId);
    await transactions.run(() => workspaces.incrementMetadataVersion(fresh.workspaceId));
    expect(await workspaces.metadataVersion(fresh.workspaceId)).toBe(2);
    expect(await workspaces.metadataVersion(ws.workspaceId)).toBe(0);
    expect(await workspaces.metadataVersion('wks_01AAAAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
  });

  it('rolls an increment back with the transaction it ran in', async () => {
    const fresh = await createWorkspace(t.http);
    const failure = new Error('the definition change failed');
    await expect(
      transactions.run(async () => {
        await workspaces.incrementMetadataVersion(fresh.workspaceId);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await workspaces.metadataVersion(fresh.workspaceId)).toBe(0);
  });

  it('locks for a metadata change only inside a transaction, and says when there is no such workspace', async () => {
    expect(await transactions.run(() => workspaces.lockForMetadataChange(ws.workspaceId))).toBe(true);
    expect(await transactions.run(() => workspaces.lockForMetadataChange('wks_01AAAAAAAAAAAAAAAAAAAAAAAA'))).toBe(
      false,
    );
    await expect(workspaces.lockForMetadataChange(ws.workspaceId)).rejects.toThrow(/transaction/);
  });

  it('makes a second metadata change of the workspace wait until the first transaction ends', async () => {
    const dataSource = t.app.get(DataSource);
    const order: string[] = [];
    const firstHolds = new Gate();
    const first = transactions.run(async () => {
      await workspaces.lockForMetadataChange(ws.workspaceId);
      order.push('first locked');
      await firstHolds.pass();
      order.push('first ends');
    });
    await firstHolds.arrived;
    let secondBackend: number | undefined;
    const second = transactions.run(async () => {
      [{ pid: secondBackend }] = await transactions.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await workspaces.lockForMetadataChange(ws.workspaceId);
      order.push('second locked');
    });
    const waitsForLock = async () =>
      secondBackend !== undefined &&
      (
        await dataSource.query<unknown[]>(
          `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
          [secondBackend],
        )
      ).length === 1;
    for (let tries = 0; !(await waitsForLock()); tries += 1) {
      if (tries === 200) throw new Error('the second transaction never waited for the lock');
      await sleep(10);
    }
    expect(order).toEqual(['first locked']);
    firstHolds.open();
    await Promise.all([first, second]);
    expect(order).toEqual(['first locked', 'first ends', 'second locked']);
  });
});

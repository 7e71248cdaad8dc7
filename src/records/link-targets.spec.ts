import { ApiError } from '../common/errors/api-error';
import { newId } from '../common/ids';
import { LinkTargets } from './link-targets';
import type { RecordsRepository } from './records.repository';

function refusal(run: () => Promise<void>): Promise<[number, string, string | undefined]> {
  return run().then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      if (!(error instanceof ApiError)) throw error;
      return [error.status, error.code, error.param];
    },
  );
}

describe('LinkTargets', () => {
  const [account, otherAccount, member] = [newId('account'), newId('account'), newId('member')];
  let recordLookups: [string, string, string[]][];
  let memberLookups: [string, string[]][];
  let targets: LinkTargets;

  beforeEach(() => {
    recordLookups = [];
    memberLookups = [];
    const records = {
      existingIds: async (workspaceId: string, slug: string, ids: string[]) => {
        recordLookups.push([workspaceId, slug, ids]);
        return ids.filter((id) => id === account);
      },
    } as unknown as RecordsRepository;
    targets = new LinkTargets(records);
    targets.register('member', {
      existingIds: async (workspaceId: string, ids: string[]) => {
        memberLookups.push([workspaceId, ids]);
        return ids.filter((id) => id === member);
      },
    });
  });

  it('asks the records for record types and the registered owner for its own', async () => {
    await targets.verify('wks', 'account', [account], 'relationships.$account');
    await targets.verify('wks', 'member', [member], 'relationships.$owner');
    expect(recordLookups).toEqual([['wks', 'account', [account]]]);
    expect(memberLookups).toEqual([['wks', [member]]]);
  });

  it('answers 422 relationship_entity_missing at the param for an id that is not there', async () => {
    expect(
      await refusal(() => targets.verify('wks', 'account', [account, otherAccount], 'relationships.$account')),
    ).toEqual([422, 'relationship_entity_missing', 'relationships.$account']);
    expect(await refusal(() => targets.verify('wks', 'member', [newId('member')], 'relationships.$owner'))).toEqual([
      422,
      'relationship_entity_missing',
      'relationships.$owner',
    ]);
  });

  it('refuses an id of another type or shape before any lookup, and looks nothing up for no ids', async () => {
    for (const id of [member, 'acc_nope', newId('contact')]) {
      expect(await refusal(() => targets.verify('wks', 'account', [account, id], 'p'))).toEqual([
        422,
        'relationship_entity_missing',
        'p',
      ]);
    }
    await targets.verify('wks', 'member', [], 'p');
    expect([recordLookups, memberLookups]).toEqual([[], []]);
  });

  it('keys owners by slug in a Map: a custom type named constructor is a record type', async () => {
    const custom = newId('record');
    await expect(targets.verify('wks', 'constructor', [custom], 'p')).rejects.toBeInstanceOf(ApiError);
    expect(recordLookups).toEqual([['wks', 'constructor', [custom]]]);
  });
});

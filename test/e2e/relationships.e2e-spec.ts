import { expectError } from '../support/errors';
import { createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { countQueries } from '../support/query-counter';
import { Entity, idsOf, RecordsApi } from '../support/records';
import { createTestApp, TestApp } from '../support/test-app';

/** Relationship writes and reads of docs/api.md §7: limits, operations, cardinality, targets, custom links. */
describe('relationships', () => {
  let t: TestApp;
  let api: RecordsApi;
  let ws: TestWorkspace;
  let otherApi: RecordsApi;
  let other: TestWorkspace;
  let contacts: string[];

  beforeAll(async () => {
    t = await createTestApp();
    ws = await createWorkspace(t.http);
    other = await createWorkspace(t.http);
    api = new RecordsApi(t, new OpenApiValidator(t.document), ws.key, ws.workspaceId);
    otherApi = api.as(other.key, other.workspaceId);
    contacts = [];
    for (let i = 0; i < 26; i += 1) contacts.push((await api.contact(`Pool ${i}`)).id);
  });
  afterAll(() => t.close());

  describe('at most 25 ids per request, counted over all relationships', () => {
    it('takes 25 ids on create, over two relationships, and refuses 26', async () => {
      const ok = await api.account('Twenty-five', {
        relationships: { $owner: ws.memberId, $contact: contacts.slice(0, 24) },
      });
      expect(ok.relationships.$contact.values).toHaveLength(24);
      expect(ok.relationships.$owner.values).toEqual([ws.memberId]);
      expectError(
        await api.createRaw('account', {
          fields: { $name: 'x' },
          relationships: { $owner: ws.memberId, $contact: contacts.slice(0, 25) },
        }),
        422,
        'relationship_write_limit_exceeded',
        'relationships',
      );
      expectError(
        await api.createRaw('account', { fields: { $name: 'x' }, relationships: { $contact: contacts } }),
        422,
        'relationship_write_limit_exceeded',
        'relationships',
      );
    });

    it('counts note $account and $opportunity together', async () => {
      const accounts: string[] = [];
      for (let i = 0; i < 13; i += 1) accounts.push((await api.account(`N${i}`)).id);
      const opportunities: string[] = [];
      for (let i = 0; i < 13; i += 1) opportunities.push((await api.opportunity(accounts[0], `O${i}`)).id);
      const ok = await api.create('note', {
        fields: { $title: '25 links' },
        relationships: { $account: accounts.slice(0, 12), $opportunity: opportunities },
      });
      expect(ok.relationships.$account.values).toHaveLength(12);
      expect(ok.relationships.$opportunity.values).toHaveLength(13);
      expectError(
        await api.createRaw('note', {
          fields: { $title: '26 links' },
          relationships: { $account: accounts, $opportunity: opportunities },
        }),
        422,
        'relationship_write_limit_exceeded',
        'relationships',
      );
      expectError(
        await api.updateRaw('note', ok.id, {
          relationships: {
            $account: { add: accounts[12], remove: accounts.slice(0, 12) },
            $opportunity: { remove: opportunities },
          },
        }),
        422,
        'relationship_write_limit_exceeded',
        'relationships',
      );
      expect((await api.retrieve('note', ok.id)).relationships).toEqual(ok.relationships);
    });

    it('counts add, remove and replace on update, and writes nothing when over', async () => {
      const account = await api.account('Updated links', { relationships: { $contact: contacts.slice(0, 5) } });
      expectError(
        await api.updateRaw('account', account.id, {
          relationships: { $contact: { add: contacts.slice(5, 25), remove: contacts.slice(0, 6) } },
        }),
        422,
        'relationship_write_limit_exceeded',
        'relationships',
      );
      expectError(
        await api.updateRaw('account', account.id, {
          relationships: { $contact: { replace: contacts.slice(0, 25) }, $owner: { add: ws.memberId } },
        }),
        422,
        'relationship_write_limit_exceeded',
        'relationships',
      );
      expect((await api.retrieve('account', account.id)).relationships.$contact.values).toEqual(contacts.slice(0, 5));
      const ok = await api.update('account', account.id, {
        relationships: { $contact: { add: contacts.slice(5, 25), remove: contacts.slice(0, 5) } },
      });
      expect(ok.relationships.$contact.values).toEqual(contacts.slice(5, 25));
    });

    it('counts before looking ids up: 26 unknown ids are over the limit', async () => {
      const unknown = Array.from({ length: 26 }, (_, i) => `con_01AAAAAAAAAAAAAAAAAAAAAA${String(i).padStart(2, '0')}`);
      expectError(
        await api.createRaw('account', { fields: { $name: 'x' }, relationships: { $contact: unknown } }),
        422,
        'relationship_write_limit_exceeded',
        'relationships',
      );
    });
  });

  describe('add and remove', () => {
    it('treats removing an id that is not linked as a no-op', async () => {
      const account = await api.account('No-op', { relationships: { $contact: [contacts[0]] } });
      const updated = await api.update('account', account.id, {
        relationships: { $contact: { remove: [contacts[1], contacts[2]] } },
      });
      expect(updated.relationships.$contact.values).toEqual([contacts[0]]);
      const empty = await api.account('Empty');
      const stillEmpty = await api.update('account', empty.id, {
        relationships: { $contact: { remove: contacts[0] }, $owner: { remove: ws.memberId } },
      });
      expect(stillEmpty.relationships.$contact.values).toEqual([]);
      expect(stillEmpty.relationships.$owner.values).toEqual([]);
    });

    it('applies remove before add', async () => {
      const account = await api.account('Order', { relationships: { $contact: [contacts[3]] } });
      const kept = await api.update('account', account.id, {
        relationships: { $contact: { add: contacts[3], remove: contacts[3] } },
      });
      expect(kept.relationships.$contact.values).toEqual([contacts[3]]);
      const swapped = await api.update('account', account.id, {
        relationships: { $contact: { remove: contacts[3], add: contacts[4] } },
      });
      expect(swapped.relationships.$contact.values).toEqual([contacts[4]]);
      expect((await api.retrieve('contact', contacts[3])).relationships.$account.values).toEqual([]);
      expect((await api.retrieve('contact', contacts[4])).relationships.$account.values).toEqual([account.id]);

      // On a HAS_ONE relationship, remove-then-add swaps without ever holding two ids.
      const [a1, a2] = [await api.account('One'), await api.account('Two')];
      const contact = await api.contact('Swapper', { relationships: { $account: a1.id } });
      const moved = await api.update('contact', contact.id, {
        relationships: { $account: { add: a2.id, remove: a1.id } },
      });
      expect(moved.relationships.$account.values).toEqual([a2.id]);
      const same = await api.update('contact', contact.id, {
        relationships: { $account: { add: a2.id, remove: a2.id } },
      });
      expect(same.relationships.$account.values).toEqual([a2.id]);
    });

    it('adds an id already linked once only', async () => {
      const account = await api.account('Twice', { relationships: { $contact: [contacts[5], contacts[5]] } });
      expect(account.relationships.$contact.values).toEqual([contacts[5]]);
      const again = await api.update('account', account.id, {
        relationships: { $contact: { add: [contacts[5], contacts[5]] } },
      });
      expect(again.relationships.$contact.values).toEqual([contacts[5]]);
    });

    it('refuses operations the route does not allow, and bad operation shapes', async () => {
      const note = await api.create('note', { fields: { $title: 'ops' } });
      expectError(
        await api.updateRaw('note', note.id, { relationships: { $account: { replace: [] } } }),
        400,
        'invalid_operation',
      );
      const account = await api.account('Ops');
      expectError(
        await api.updateRaw('account', account.id, { relationships: { $contact: { replace: [], remove: [] } } }),
        400,
        'invalid_operation',
        'relationships.$contact',
      );
      expectError(
        await api.updateRaw('account', account.id, { relationships: { $contact: { move: contacts[0] } } }),
        400,
        'invalid_operation',
        'relationships.$contact.move',
      );
      expectError(
        await api.updateRaw('account', account.id, { relationships: { $contact: contacts[0] } }),
        400,
        'invalid_type',
        'relationships.$contact',
      );
      expectError(
        await api.updateRaw('account', account.id, { relationships: { $contact: { add: 5 } } }),
        400,
        'invalid_type',
        'relationships.$contact.add',
      );
      expectError(
        await api.updateRaw('account', account.id, { relationships: [] }),
        400,
        'invalid_type',
        'relationships',
      );
    });
  });

  describe('HAS_ONE holds at most one id', () => {
    it('answers 422 invalid_value for two ids, on create, replace and add', async () => {
      const [a1, a2] = [await api.account('H1'), await api.account('H2')];
      expectError(
        await api.createRaw('contact', { fields: {}, relationships: { $account: [a1.id, a2.id] } }),
        422,
        'invalid_value',
        'relationships.$account',
      );
      const contact = await api.contact('Held', { relationships: { $account: [a1.id, a1.id] } });
      expect(contact.relationships.$account.values).toEqual([a1.id]);
      expectError(
        await api.updateRaw('contact', contact.id, { relationships: { $account: { replace: [a1.id, a2.id] } } }),
        422,
        'invalid_value',
        'relationships.$account',
      );
      expectError(
        await api.updateRaw('contact', contact.id, { relationships: { $account: { add: a2.id } } }),
        422,
        'invalid_value',
        'relationships.$account',
      );
      expect((await api.retrieve('contact', contact.id)).relationships.$account.values).toEqual([a1.id]);
      const m2 = await createMember(t.http, ws.workspaceId);
      expectError(
        await api.createRaw('opportunity', {
          fields: { $name: 'o', $stage: 'LEAD' },
          relationships: { $account: a1.id, $owner: [ws.memberId, m2.id] },
        }),
        422,
        'invalid_value',
        'relationships.$owner',
      );
      expectError(
        await api.createRaw('opportunity', {
          fields: { $name: 'o', $stage: 'LEAD' },
          relationships: { $account: [a1.id, a2.id] },
        }),
        422,
        'invalid_value',
        'relationships.$account',
      );
    });

    it('answers 422 parameter_missing for a required relationship given as null', async () => {
      expectError(
        await api.createRaw('opportunity', {
          fields: { $name: 'o', $stage: 'LEAD' },
          relationships: { $account: null },
        }),
        422,
        'parameter_missing',
        'relationships.$account',
      );
      expectError(
        await api.createRaw('task', { fields: { $title: 't', $status: 'TODO' }, relationships: { $assignedTo: null } }),
        422,
        'parameter_missing',
        'relationships.$assignedTo',
      );
    });

    it('treats an optional relationship given as null as absent, on create and on update', async () => {
      const account = await api.account('Null optional link');
      const body = { fields: { $title: 'n' }, relationships: { $account: null, $opportunity: null } };
      expect(new OpenApiValidator(t.document).refusesRequest('POST', '/v1/notes', body)).toBe(false);
      const note = await api.create('note', body);
      expect(note.relationships.$account.values).toEqual([]);
      const linked = await api.update('note', note.id, { relationships: { $account: { add: account.id } } });
      const unchanged = await api.update('note', note.id, { relationships: { $account: null } });
      expect(unchanged.relationships).toEqual(linked.relationships);
    });

    it('treats "relationships": null as absent: a required relationship is then missing', async () => {
      expectError(
        await api.createRaw('task', { fields: { $title: 't', $status: 'TODO' }, relationships: null }),
        422,
        'parameter_missing',
        'relationships.$assignedTo',
      );
      const account = await api.account('Null links');
      expectError(
        await api.createRaw('opportunity', { fields: { $name: 'o', $stage: 'LEAD' }, relationships: null }),
        422,
        'parameter_missing',
        'relationships.$account',
      );
      const contact = await api.create('contact', { fields: {}, relationships: null });
      expect(contact.relationships.$account.values).toEqual([]);
      const linked = await api.update('contact', contact.id, { relationships: { $account: { add: account.id } } });
      expect(await api.update('contact', contact.id, { relationships: null })).toEqual({
        ...linked,
        updatedAt: expect.any(String),
      });
    });
  });

  describe('a required relationship cannot be emptied by an update', () => {
    const requiredCases: [
      string,
      'task' | 'opportunity',
      string,
      () => Promise<{ id: string; linked: string; other: string }>,
    ][] = [
      [
        'task $assignedTo',
        'task',
        '$assignedTo',
        async () => {
          const other = (await createMember(t.http, ws.workspaceId)).id;
          const task = await api.create('task', {
            fields: { $title: 't', $status: 'TODO' },
            relationships: { $assignedTo: ws.memberId },
          });
          return { id: task.id, linked: ws.memberId, other };
        },
      ],
      [
        'opportunity $account',
        'opportunity',
        '$account',
        async () => {
          const [linked, other] = [(await api.account('Held')).id, (await api.account('Next')).id];
          return { id: (await api.opportunity(linked)).id, linked, other };
        },
      ],
    ];

    it.each(requiredCases)(
      'refuses to empty %s with 422 parameter_missing, and leaves it linked',
      async (_case, type, key, make) => {
        const { id, linked, other } = await make();
        const before = await api.retrieve(type, id);
        const param = `relationships.${key}`;
        for (const emptying of [{ remove: linked }, { remove: [linked, other] }, { replace: [] }, null]) {
          // With a field change too, which the refusal must roll back.
          const fields = type === 'task' ? { $title: 'Changed' } : { $name: 'Changed' };
          const refused = await api.updateRaw(type, id, { fields, relationships: { [key]: emptying } });
          expectError(refused, 422, 'parameter_missing', param);
        }
        expect(await api.retrieve(type, id)).toEqual(before);
        // Moving it elsewhere is no emptying.
        expect(
          (await api.update(type, id, { relationships: { [key]: { remove: linked, add: other } } })).relationships[key]
            .values,
        ).toEqual([other]);
        expect(
          (await api.update(type, id, { relationships: { [key]: { replace: linked } } })).relationships[key].values,
        ).toEqual([linked]);
        // Removing an id that is not linked leaves it linked, as ever.
        expect(
          (await api.update(type, id, { relationships: { [key]: { remove: other } } })).relationships[key].values,
        ).toEqual([linked]);
      },
    );
  });

  describe('ids that do not exist in this workspace with the right type', () => {
    let account: Entity;
    let foreignAccount: string;
    let foreignContact: string;
    let opportunity: string;

    beforeAll(async () => {
      account = await api.account('Target');
      opportunity = (await api.opportunity(account.id)).id;
      foreignAccount = (await otherApi.account('Foreign')).id;
      foreignContact = (await otherApi.contact('Foreign')).id;
    });

    it.each([
      ['a contact id', () => contacts[0]],
      ['an opportunity id', () => opportunity],
      ['a member id', () => ws.memberId],
      ['an account of another workspace', () => foreignAccount],
      ['a well-formed unknown account id', () => 'acc_01AAAAAAAAAAAAAAAAAAAAAAAA'],
      ['an id with a bad body', () => 'acc_123'],
      ['a lower-case account id', () => 'acc_01aaaaaaaaaaaaaaaaaaaaaaaa'],
      ['garbage', () => 'garbage'],
      ['an empty string', () => ''],
    ])('refuses %s as contact $account with 422 relationship_entity_missing', async (_case, id) => {
      const param = 'relationships.$account';
      expectError(
        await api.createRaw('contact', { fields: {}, relationships: { $account: id() } }),
        422,
        'relationship_entity_missing',
        param,
      );
      expectError(
        await api.createRaw('contact', { fields: {}, relationships: { $account: [account.id, id()] } }),
        422,
        'relationship_entity_missing',
        param,
      );
      const contact = await api.contact('Target of updates');
      expectError(
        await api.updateRaw('contact', contact.id, { relationships: { $account: { add: id() } } }),
        422,
        'relationship_entity_missing',
        param,
      );
      expectError(
        await api.updateRaw('contact', contact.id, { relationships: { $account: { replace: [id()] } } }),
        422,
        'relationship_entity_missing',
        param,
      );
      expect((await api.retrieve('contact', contact.id)).relationships.$account.values).toEqual([]);
    });

    it('refuses non-members as $owner and foreign contacts as account $contact', async () => {
      for (const id of [account.id, other.memberId, 'mem_01AAAAAAAAAAAAAAAAAAAAAAAA']) {
        expectError(
          await api.createRaw('account', { fields: { $name: 'x' }, relationships: { $owner: id } }),
          422,
          'relationship_entity_missing',
          'relationships.$owner',
        );
      }
      expectError(
        await api.updateRaw('account', account.id, {
          relationships: { $contact: { add: [contacts[0], foreignContact] } },
        }),
        422,
        'relationship_entity_missing',
        'relationships.$contact',
      );
      expect((await api.retrieve('account', account.id)).relationships.$contact.values).toEqual([]);
    });

    it('refuses ids that are not strings with 400 invalid_type', async () => {
      for (const value of [5, [account.id, 5], {}, [null], true]) {
        expectError(
          await api.createRaw('contact', { fields: {}, relationships: { $account: value } }),
          400,
          'invalid_type',
          'relationships.$account',
        );
      }
    });
  });

  describe('custom relationships', () => {
    it('links two system types HAS_MANY, with a read-only inverse on the other side', async () => {
      const definitions = await api.addRelationship('opportunity', {
        key: 'stakeholders',
        label: 'Stakeholders',
        cardinality: 'HAS_MANY',
        objectType: 'contact',
        inverseKey: 'stakeholderOf',
        inverseLabel: 'Stakeholder of',
      });
      expect(definitions.relationshipDefinitions.stakeholders).toEqual({
        id: expect.stringMatching(/^rel_/),
        label: 'Stakeholders',
        description: null,
        cardinality: 'HAS_MANY',
        objectType: 'contact',
        readOnly: false,
        required: false,
      });
      const contactDefinitions = (await api.definitions('contact')).body;
      expect(contactDefinitions.relationshipDefinitions.stakeholderOf).toMatchObject({
        label: 'Stakeholder of',
        cardinality: 'HAS_MANY',
        objectType: 'opportunity',
        readOnly: true,
      });
      expect((await api.definitions('opportunity')).body.relationshipDefinitions.stakeholders).toEqual(
        definitions.relationshipDefinitions.stakeholders,
      );

      const account = await api.account('Custom links');
      const [c1, c2, c3] = contacts.slice(10, 13);
      const opp = await api.opportunity(account.id, 'Staked', { relationships: { stakeholders: [c1, c2] } });
      expect(opp.relationships.stakeholders).toEqual({
        cardinality: 'has_many',
        objectType: 'contact',
        values: [c1, c2],
      });
      expect((await api.retrieve('contact', c1)).relationships.stakeholderOf).toEqual({
        cardinality: 'has_many',
        objectType: 'opportunity',
        values: [opp.id],
      });
      // Existing records read the new relationship as empty.
      expect((await api.retrieve('contact', contacts[20])).relationships.stakeholderOf.values).toEqual([]);

      const changed = await api.update('opportunity', opp.id, {
        relationships: { stakeholders: { add: c3, remove: c1 } },
      });
      expect(changed.relationships.stakeholders.values).toEqual([c2, c3]);
      expect((await api.retrieve('contact', c1)).relationships.stakeholderOf.values).toEqual([]);
      const replaced = await api.update('opportunity', opp.id, { relationships: { stakeholders: { replace: [c1] } } });
      expect(replaced.relationships.stakeholders.values).toEqual([c1]);
      expect((await api.retrieve('contact', c2)).relationships.stakeholderOf.values).toEqual([]);
      expect(idsOf(await api.list('contact', { stakeholderOf: opp.id }))).toEqual([c1]);
      expect(idsOf(await api.list('opportunity', { stakeholders: c1 }))).toEqual([opp.id]);

      expectError(
        await api.createRaw('contact', { fields: {}, relationships: { stakeholderOf: opp.id } }),
        422,
        'read_only_field',
        'relationships.stakeholderOf',
      );
      expectError(
        await api.updateRaw('contact', c1, { relationships: { stakeholderOf: { remove: opp.id } } }),
        422,
        'read_only_field',
        'relationships.stakeholderOf',
      );
      expectError(
        await api.updateRaw('opportunity', opp.id, { relationships: { stakeholders: { add: account.id } } }),
        422,
        'relationship_entity_missing',
        'relationships.stakeholders',
      );
      expectError(
        await api.updateRaw('opportunity', opp.id, {
          relationships: { stakeholders: { add: (await otherApi.contact()).id } },
        }),
        422,
        'relationship_entity_missing',
        'relationships.stakeholders',
      );
    });

    it('links a type to itself, each end under its own key', async () => {
      await api.addRelationship('account', {
        key: 'parent',
        label: 'Parent',
        cardinality: 'HAS_ONE',
        objectType: 'account',
      });
      const definitions = (await api.definitions('account')).body;
      expect(definitions.relationshipDefinitions.parent).toMatchObject({
        cardinality: 'HAS_ONE',
        objectType: 'account',
        readOnly: false,
      });
      expect(definitions.relationshipDefinitions.account_parent).toMatchObject({
        cardinality: 'HAS_MANY',
        objectType: 'account',
        readOnly: true,
      });
      const parent = await api.account('Parent');
      const child = await api.account('Child', { relationships: { parent: parent.id } });
      expect(child.relationships.parent.values).toEqual([parent.id]);
      expect(child.relationships.account_parent.values).toEqual([]);
      const read = await api.retrieve('account', parent.id);
      expect(read.relationships.parent.values).toEqual([]);
      expect(read.relationships.account_parent.values).toEqual([child.id]);
      const sibling = await api.account('Sibling', { relationships: { parent: parent.id } });
      expect((await api.retrieve('account', parent.id)).relationships.account_parent.values).toEqual([
        child.id,
        sibling.id,
      ]);
      expectError(
        await api.updateRaw('account', child.id, { relationships: { parent: { add: sibling.id } } }),
        422,
        'invalid_value',
        'relationships.parent',
      );
      expect(idsOf(await api.list('account', { parent: parent.id }))).toEqual([sibling.id, child.id]);
      expect(idsOf(await api.list('account', { account_parent: child.id }))).toEqual([parent.id]);
    });

    it('links to members, HAS_MANY and HAS_ONE', async () => {
      await api.addRelationship('account', {
        key: 'reviewers',
        label: 'Reviewers',
        cardinality: 'HAS_MANY',
        objectType: 'member',
      });
      await api.addRelationship('account', {
        key: 'champion',
        label: 'Champion',
        cardinality: 'HAS_ONE',
        objectType: 'member',
      });
      const definitions = (await api.definitions('account')).body;
      expect(definitions.relationshipDefinitions.reviewers).toMatchObject({
        cardinality: 'HAS_MANY',
        objectType: 'member',
        readOnly: false,
      });
      const m2 = await createMember(t.http, ws.workspaceId);
      const account = await api.account('Reviewed', {
        relationships: { reviewers: [ws.memberId, m2.id], champion: m2.id },
      });
      expect(account.relationships.reviewers).toEqual({
        cardinality: 'has_many',
        objectType: 'member',
        values: [ws.memberId, m2.id],
      });
      expect(account.relationships.champion).toEqual({ cardinality: 'has_one', objectType: 'member', values: [m2.id] });
      const removed = await api.update('account', account.id, {
        relationships: { reviewers: { remove: ws.memberId } },
      });
      expect(removed.relationships.reviewers.values).toEqual([m2.id]);
      expect(idsOf(await api.list('account', { reviewers: m2.id }))).toEqual([account.id]);
      expectError(
        await api.createRaw('account', { fields: { $name: 'x' }, relationships: { champion: [ws.memberId, m2.id] } }),
        422,
        'invalid_value',
        'relationships.champion',
      );
      for (const id of [other.memberId, contacts[0]]) {
        expectError(
          await api.createRaw('account', { fields: { $name: 'x' }, relationships: { reviewers: [id] } }),
          422,
          'relationship_entity_missing',
          'relationships.reviewers',
        );
      }
      // Members have no relationships of their own (docs/api.md §6).
      const member = await api.get(`/v1/members/${m2.id}`);
      expect(member.body.relationships).toEqual({});
    });

    it('keeps the route’s operations: a custom relationship on notes takes add and remove only', async () => {
      await api.addRelationship('note', {
        key: 'people',
        label: 'People',
        cardinality: 'HAS_MANY',
        objectType: 'contact',
      });
      const note = await api.create('note', { fields: { $title: 'People' }, relationships: { people: [contacts[0]] } });
      expect(note.relationships.people.values).toEqual([contacts[0]]);
      expectError(
        await api.updateRaw('note', note.id, { relationships: { people: { replace: [] } } }),
        400,
        'invalid_operation',
      );
      const added = await api.update('note', note.id, {
        relationships: { people: { add: contacts[1], remove: contacts[0] } },
      });
      expect(added.relationships.people.values).toEqual([contacts[1]]);
    });
  });

  describe('list pages cost a bounded number of queries', () => {
    let bounded: RecordsApi;

    beforeAll(async () => {
      const fresh = await createWorkspace(t.http);
      bounded = api.as(fresh.key, fresh.workspaceId);
      await bounded.addRelationship('account', {
        key: 'partners',
        label: 'Partners',
        cardinality: 'HAS_MANY',
        objectType: 'contact',
      });
      await bounded.addField('account', { key: 'score', label: 'Score', valueType: 'NUMBER' });
      const accounts: string[] = [];
      for (let i = 0; i < 25; i += 1) {
        const account = await bounded.account(`Heavy ${i}`, {
          fields: { score: i },
          relationships: { $owner: fresh.memberId },
        });
        accounts.push(account.id);
        const contact = await bounded.contact(`Heavy ${i}`, { relationships: { $account: account.id } });
        await bounded.update('account', account.id, { relationships: { partners: { add: contact.id } } });
        await bounded.opportunity(account.id, `Heavy ${i}`);
      }
      await bounded.create('note', { fields: { $title: 'on all' }, relationships: { $account: accounts } });
      await bounded.create('task', {
        fields: { $title: 'on one', $status: 'TODO' },
        relationships: { $assignedTo: fresh.memberId, $account: accounts[0] },
      });
    });

    async function queriesFor(path: string): Promise<{ count: number; items: number; queries: string[] }> {
      const { result, queries } = await countQueries(() => bounded.get(path));
      expect(result.status).toBe(200);
      return { count: queries.length, items: result.body.data.length, queries };
    }

    it.each([
      ['accounts', '/v1/accounts'],
      ['accounts, filtered', '/v1/accounts?score[greaterThanOrEqual]=0'],
      ['accounts, filtered by a relationship', '/v1/accounts?$note[-equal]=note_01AAAAAAAAAAAAAAAAAAAAAAAA'],
      ['contacts', '/v1/contacts'],
      ['opportunities', '/v1/opportunities'],
    ])('%s: the same number of queries for 1 and for 25 items', async (_name, path) => {
      const separator = path.includes('?') ? '&' : '?';
      const one = await queriesFor(`${path}${separator}limit=1`);
      const many = await queriesFor(`${path}${separator}limit=25`);
      expect(one.items).toBe(1);
      expect(many.items).toBe(25);
      expect({ many: many.count, queries: many.queries }).toEqual({ many: one.count, queries: many.queries });
      // One statement for count, page and links (the API-key lookup is a prepared statement on the
      // pool, outside the query runner counted here): a handful, not one per item.
      expect(many.count).toBeGreaterThanOrEqual(1);
      expect(many.count).toBeLessThanOrEqual(6);
    });

    it('reads every link of a full page correctly', async () => {
      const page = await bounded.list('account', { limit: 25 });
      for (const account of page.body.data as Entity[]) {
        expect(account.relationships.$contact.values).toHaveLength(1);
        expect(account.relationships.partners.values).toEqual(account.relationships.$contact.values);
        expect(account.relationships.$opportunity.values).toHaveLength(1);
        expect(account.relationships.$note.values).toHaveLength(1);
        expect(account.relationships.$owner.values).toHaveLength(1);
      }
    });
  });
});

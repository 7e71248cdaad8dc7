import { expectError } from '../support/errors';
import { createKey, createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { DefinitionsBody, idsOf, RecordsApi, RecordType } from '../support/records';
import { createTestApp, TestApp } from '../support/test-app';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

/** Accounts, contacts and opportunities (docs/api.md §7): routes, scopes, system fields and links. */
describe('accounts, contacts, opportunities', () => {
  let t: TestApp;
  let api: RecordsApi;
  let ws: TestWorkspace;
  let other: TestWorkspace;
  let otherApi: RecordsApi;

  beforeAll(async () => {
    t = await createTestApp();
    const openapi = new OpenApiValidator(t.document);
    ws = await createWorkspace(t.http);
    other = await createWorkspace(t.http);
    api = new RecordsApi(t, openapi, ws.key, ws.workspaceId);
    otherApi = api.as(other.key, other.workspaceId);
  });
  afterAll(() => t.close());

  describe('accounts', () => {
    let definitions: DefinitionsBody;
    const industry = (label: string): string => {
      const options = definitions.fieldDefinitions.$industry.typeConfiguration.options as {
        id: string;
        label: string;
      }[];
      return options.find((option) => option.label === label)!.id;
    };

    beforeAll(async () => {
      definitions = (await api.definitions('account')).body;
    });

    it('serves the definitions of docs/api.md §7', async () => {
      const response = await api.definitions('account');
      expect(response.status).toBe(200);
      expect(response.body.objectType).toBe('account');
      const fields = response.body.fieldDefinitions;
      expect(Object.keys(fields).sort()).toEqual(
        ['$headcount', '$industry', '$linkedIn', '$name', '$primaryAddress', '$twitter', '$website'].sort(),
      );
      expect(fields.$name).toMatchObject({ valueType: 'TEXT', required: true, readOnly: false });
      expect(fields.$website).toMatchObject({
        valueType: 'URL',
        required: false,
        typeConfiguration: { multipleValues: true },
      });
      expect(fields.$primaryAddress).toMatchObject({ valueType: 'ADDRESS', required: false });
      expect(fields.$industry.valueType).toBe('MULTI_SELECT');
      expect(fields.$industry.typeConfiguration.options.length).toBeGreaterThan(0);
      for (const option of fields.$industry.typeConfiguration.options) {
        expect(option).toEqual(expect.objectContaining({ id: expect.any(String), label: expect.any(String) }));
      }
      expect(fields.$headcount.valueType).toBe('SINGLE_SELECT');
      for (const option of fields.$headcount.typeConfiguration.options) expect(option.id).toBe(option.label);
      expect(fields.$linkedIn).toMatchObject({
        valueType: 'SOCIAL_HANDLE',
        typeConfiguration: { handleService: 'LINKEDIN' },
      });
      expect(fields.$twitter).toMatchObject({
        valueType: 'SOCIAL_HANDLE',
        typeConfiguration: { handleService: 'TWITTER' },
      });
      const relationships = response.body.relationshipDefinitions;
      expect(Object.keys(relationships).sort()).toEqual([
        '$contact',
        '$meeting',
        '$note',
        '$opportunity',
        '$owner',
        '$task',
      ]);
      expect(relationships.$owner).toMatchObject({ cardinality: 'HAS_ONE', objectType: 'member', readOnly: false });
      expect(relationships.$contact).toMatchObject({ cardinality: 'HAS_MANY', objectType: 'contact', readOnly: false });
      expect(relationships.$opportunity).toMatchObject({
        cardinality: 'HAS_MANY',
        objectType: 'opportunity',
        readOnly: true,
      });
      expect(relationships.$note).toMatchObject({ cardinality: 'HAS_MANY', objectType: 'note', readOnly: true });
      expect(relationships.$task).toMatchObject({ cardinality: 'HAS_MANY', objectType: 'task', readOnly: true });
      expect(relationships.$meeting).toMatchObject({ cardinality: 'HAS_MANY', objectType: 'meeting', readOnly: true });
    });

    it('creates an account with every system field and reads it back', async () => {
      const response = await api.createRaw('account', {
        fields: {
          $name: 'Acme Corp',
          $website: ['https://acme.example', 'http://www.acme.example/about'],
          $primaryAddress: {
            street: '1 Main St',
            street2: 'Suite 2',
            city: 'Springfield',
            state: 'OR',
            postalCode: '97477',
            country: 'us',
            latitude: 44.05,
            longitude: -123.02,
          },
          $industry: ['Software', industry('Finance')],
          $headcount: '11-50',
          $linkedIn: 'https://www.linkedin.com/company/acme',
          $twitter: '@acme',
        },
        relationships: { $owner: ws.memberId },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: expect.stringMatching(new RegExp(`^acc_${ULID}$`)),
        createdAt: expect.stringMatching(ISO_DATE),
        updatedAt: null,
        version: 1,
        httpLink: null,
        externalId: null,
        fields: {
          $name: { value: 'Acme Corp', valueType: 'TEXT' },
          $website: { value: ['https://acme.example', 'http://www.acme.example/about'], valueType: 'URL' },
          $primaryAddress: {
            value: {
              street: '1 Main St',
              street2: 'Suite 2',
              city: 'Springfield',
              state: 'OR',
              postalCode: '97477',
              country: 'US',
              latitude: 44.05,
              longitude: -123.02,
            },
            valueType: 'ADDRESS',
          },
          $industry: { value: [industry('Software'), industry('Finance')], valueType: 'MULTI_SELECT' },
          $headcount: { value: '11-50', valueType: 'SINGLE_SELECT' },
          $linkedIn: { value: 'https://www.linkedin.com/company/acme', valueType: 'SOCIAL_HANDLE' },
          $twitter: { value: '@acme', valueType: 'SOCIAL_HANDLE' },
        },
        relationships: {
          $owner: { cardinality: 'has_one', objectType: 'member', values: [ws.memberId] },
          $contact: { cardinality: 'has_many', objectType: 'contact', values: [] },
          $opportunity: { cardinality: 'has_many', objectType: 'opportunity', values: [] },
          $note: { cardinality: 'has_many', objectType: 'note', values: [] },
          $task: { cardinality: 'has_many', objectType: 'task', values: [] },
          $meeting: { cardinality: 'has_many', objectType: 'meeting', values: [] },
        },
      });
      expect(await api.retrieve('account', response.body.id)).toEqual(response.body);
    });

    it('reads every field of a bare account as null and every relationship as []', async () => {
      const created = await api.account('Bare');
      for (const key of ['$website', '$primaryAddress', '$industry', '$headcount', '$linkedIn', '$twitter']) {
        expect(created.fields[key].value).toBeNull();
      }
      for (const relationship of Object.values(created.relationships)) expect(relationship.values).toEqual([]);
    });

    it('takes one website as a one-item list, and a headcount by label', async () => {
      const created = await api.account('Single', {
        fields: { $website: ' https://single.example ', $headcount: '5001+' },
      });
      expect(created.fields.$website.value).toEqual(['https://single.example']);
      expect(created.fields.$headcount.value).toBe('5001+');
    });

    it('updates only what is given, clears with null and keeps $name required', async () => {
      const created = await api.account('Before', {
        fields: { $website: 'https://before.example', $twitter: '@before', $headcount: '1-10' },
      });
      const updated = await api.update('account', created.id, { fields: { $name: 'After', $twitter: null } });
      expect(updated.fields.$name.value).toBe('After');
      expect(updated.fields.$twitter.value).toBeNull();
      expect(updated.fields.$website.value).toEqual(['https://before.example']);
      expect(updated.fields.$headcount.value).toBe('1-10');
      expect(updated.createdAt).toBe(created.createdAt);
      expect(updated.updatedAt).toMatch(ISO_DATE);
      expect(Date.parse(updated.updatedAt!)).toBeGreaterThanOrEqual(Date.parse(created.createdAt));
      expect(await api.retrieve('account', created.id)).toEqual(updated);
      expectError(
        await api.updateRaw('account', created.id, { fields: { $name: null } }),
        422,
        'parameter_missing',
        'fields.$name',
      );
      const empty = await api.update('account', created.id, {});
      expect(empty.fields).toEqual(updated.fields);
    });

    it.each([
      ['no $name', { fields: {} }, 422, 'parameter_missing', 'fields.$name'],
      ['no fields', {}, 422, 'parameter_missing', 'fields'],
      ['$name a number', { fields: { $name: 7 } }, 400, 'invalid_type', 'fields.$name'],
      ['$website not a URL', { fields: { $name: 'x', $website: 'acme' } }, 422, 'invalid_value', 'fields.$website'],
      [
        '$website with a bad item',
        { fields: { $name: 'x', $website: ['https://ok.example', 'nope'] } },
        422,
        'invalid_value',
        'fields.$website[1]',
      ],
      [
        '$primaryAddress with an unknown member',
        { fields: { $name: 'x', $primaryAddress: { zip: '1' } } },
        400,
        'unknown_field',
        'fields.$primaryAddress.zip',
      ],
      [
        '$primaryAddress with a 3-letter country',
        { fields: { $name: 'x', $primaryAddress: { country: 'USA' } } },
        422,
        'invalid_value',
        'fields.$primaryAddress.country',
      ],
      [
        '$industry not in the options',
        { fields: { $name: 'x', $industry: ['Mining'] } },
        400,
        'invalid_type',
        'fields.$industry[0]',
      ],
      [
        '$industry not an array',
        { fields: { $name: 'x', $industry: 'Software' } },
        400,
        'invalid_type',
        'fields.$industry',
      ],
      [
        '$headcount not an option',
        { fields: { $name: 'x', $headcount: '12' } },
        400,
        'invalid_type',
        'fields.$headcount',
      ],
      ['$twitter a number', { fields: { $name: 'x', $twitter: 1 } }, 400, 'invalid_type', 'fields.$twitter'],
      ['an unknown field', { fields: { $name: 'x', $revenue: 1 } }, 400, 'unknown_field', 'fields.$revenue'],
      [
        'an unknown relationship',
        { fields: { $name: 'x' }, relationships: { $account: [] } },
        400,
        'unknown_relationship',
        'relationships.$account',
      ],
    ])('refuses a create with %s', async (_case, body, status, code, param) => {
      expectError(await api.createRaw('account', body), status, code, param);
    });

    it('lists newest first with totalCount, and answers 404 for unknown, malformed and foreign ids', async () => {
      const fresh = await createWorkspace(t.http);
      const freshApi = api.as(fresh.key, fresh.workspaceId);
      const ids: string[] = [];
      for (const name of ['one', 'two', 'three']) ids.push((await freshApi.account(name)).id);
      const list = await freshApi.list('account', { limit: 2 });
      expect(list.status).toBe(200);
      expect(list.body.object).toBe('list');
      expect(list.body.totalCount).toBe(3);
      expect(idsOf(list)).toEqual([ids[2], ids[1]]);
      expect(idsOf(await freshApi.list('account', { limit: 2, offset: 2 }))).toEqual([ids[0]]);
      expect(list.body.data[0]).toEqual(await freshApi.retrieve('account', ids[2]));

      const foreign = (await otherApi.account('Foreign')).id;
      for (const id of [foreign, 'acc_01AAAAAAAAAAAAAAAAAAAAAAAA', 'acc_1', (await freshApi.contact()).id]) {
        expectError(await api.retrieveRaw('account', id), 404, 'not_found');
        expectError(await api.updateRaw('account', id, { fields: { $name: 'x' } }), 404, 'not_found');
      }
      // A workspace's own ids are 404 for another workspace's key.
      expectError(await api.retrieveRaw('account', ids[0]), 404, 'not_found');
    });
  });

  describe('contacts', () => {
    it('serves the definitions of docs/api.md §7', async () => {
      const response = await api.definitions('contact');
      expect(response.status).toBe(200);
      expect(response.body.objectType).toBe('contact');
      const fields = response.body.fieldDefinitions;
      expect(Object.keys(fields).sort()).toEqual(['$email', '$name', '$phone']);
      expect(fields.$name).toMatchObject({ valueType: 'FULL_NAME', readOnly: false });
      expect(fields.$email).toMatchObject({ valueType: 'EMAIL', typeConfiguration: { multipleValues: true } });
      expect(fields.$phone).toMatchObject({ valueType: 'TELEPHONE', typeConfiguration: { multipleValues: true } });
      expect(Object.keys(response.body.relationshipDefinitions).sort()).toEqual(['$account', '$meeting']);
      expect(response.body.relationshipDefinitions.$account).toMatchObject({
        cardinality: 'HAS_ONE',
        objectType: 'account',
        readOnly: false,
      });
      expect(response.body.relationshipDefinitions.$meeting).toMatchObject({
        cardinality: 'HAS_MANY',
        objectType: 'meeting',
        readOnly: true,
      });
    });

    it('creates a contact with every system field, emails lowercased and phones in E.164', async () => {
      const account = await api.account('Employer');
      const response = await api.createRaw('contact', {
        fields: {
          $name: { firstName: 'Ada', lastName: 'Lovelace' },
          $email: ['Ada@Example.COM', ' ada.l@work.example '],
          $phone: ['+1 (415) 555-0100', '0044 20 7946 0958', '+44 (0)20 7946 0959', '+33.1.23.45.67.89'],
        },
        relationships: { $account: account.id },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: expect.stringMatching(new RegExp(`^con_${ULID}$`)),
        createdAt: expect.stringMatching(ISO_DATE),
        updatedAt: null,
        version: 1,
        httpLink: null,
        externalId: null,
        fields: {
          $name: { value: { firstName: 'Ada', lastName: 'Lovelace' }, valueType: 'FULL_NAME' },
          $email: { value: ['ada@example.com', 'ada.l@work.example'], valueType: 'EMAIL' },
          $phone: { value: ['+14155550100', '+442079460958', '+442079460959', '+33123456789'], valueType: 'TELEPHONE' },
        },
        relationships: {
          $account: { cardinality: 'has_one', objectType: 'account', values: [account.id] },
          $meeting: { cardinality: 'has_many', objectType: 'meeting', values: [] },
        },
      });
      expect(await api.retrieve('contact', response.body.id)).toEqual(response.body);
    });

    it('takes a single email or phone as a one-item list, needs no field, and clears with null', async () => {
      const bare = await api.create('contact', { fields: {} });
      expect(bare.fields).toEqual({
        $name: { value: null, valueType: 'FULL_NAME' },
        $email: { value: null, valueType: 'EMAIL' },
        $phone: { value: null, valueType: 'TELEPHONE' },
      });
      const updated = await api.update('contact', bare.id, {
        fields: { $email: 'one@example.com', $phone: '+1 415 555 0101' },
      });
      expect(updated.fields.$email.value).toEqual(['one@example.com']);
      expect(updated.fields.$phone.value).toEqual(['+14155550101']);
      const partial = await api.update('contact', bare.id, { fields: { $name: { lastName: 'Only' } } });
      expect(partial.fields.$name.value).toEqual({ lastName: 'Only' });
      expect(partial.fields.$email.value).toEqual(['one@example.com']);
      const cleared = await api.update('contact', bare.id, { fields: { $email: null, $phone: null, $name: null } });
      expect(Object.values(cleared.fields).map((field) => field.value)).toEqual([null, null, null]);
    });

    it.each([
      ['$name a string', { $name: 'Ada' }, 400, 'invalid_type', 'fields.$name'],
      ['$name with an unknown member', { $name: { first: 'Ada' } }, 400, 'unknown_field', 'fields.$name.first'],
      ['$name.firstName a number', { $name: { firstName: 1 } }, 400, 'invalid_type', 'fields.$name.firstName'],
      ['an email that does not parse', { $email: 'ada@' }, 422, 'invalid_value', 'fields.$email'],
      [
        'a list with a bad email',
        { $email: ['a@example.com', 'not an email'] },
        422,
        'invalid_value',
        'fields.$email[1]',
      ],
      ['an email that is a number', { $email: [5] }, 400, 'invalid_type', 'fields.$email[0]'],
      ['a phone without country code', { $phone: '415 555 0100' }, 422, 'invalid_value', 'fields.$phone'],
      ['a phone of letters', { $phone: ['+1 415 555 0100', 'call me'] }, 422, 'invalid_value', 'fields.$phone[1]'],
      ['a phone that is a number', { $phone: 14155550100 }, 400, 'invalid_type', 'fields.$phone'],
      [
        'more than 100 emails',
        { $email: Array.from({ length: 101 }, (_, i) => `e${i}@example.com`) },
        422,
        'invalid_value',
        'fields.$email',
      ],
    ])('refuses %s', async (_case, fields, status, code, param) => {
      expectError(await api.createRaw('contact', { fields }), status, code, param);
      const contact = await api.contact();
      expectError(await api.updateRaw('contact', contact.id, { fields }), status, code, param);
    });
  });

  describe('opportunities', () => {
    let account: string;
    beforeAll(async () => {
      account = (await api.account('Buyer')).id;
    });

    it('serves the definitions of docs/api.md §7', async () => {
      const response = await api.definitions('opportunity');
      expect(response.status).toBe(200);
      const fields = response.body.fieldDefinitions;
      expect(Object.keys(fields).sort()).toEqual(['$amount', '$closeDate', '$name', '$stage']);
      expect(fields.$name).toMatchObject({ valueType: 'TEXT', required: true });
      expect(fields.$stage).toMatchObject({ valueType: 'SINGLE_SELECT', required: true });
      expect(fields.$stage.typeConfiguration.options).toEqual(
        ['LEAD', 'QUALIFIED', 'PROPOSAL', 'NEGOTIATION', 'WON', 'LOST'].map((stage) =>
          expect.objectContaining({ id: stage, label: stage }),
        ),
      );
      expect(fields.$amount).toMatchObject({
        valueType: 'CURRENCY',
        required: false,
        typeConfiguration: { currency: 'USD' },
      });
      expect(fields.$closeDate).toMatchObject({ valueType: 'DATETIME', required: false });
      const relationships = response.body.relationshipDefinitions;
      expect(Object.keys(relationships).sort()).toEqual(['$account', '$meeting', '$note', '$owner', '$task']);
      expect(relationships.$account).toMatchObject({
        cardinality: 'HAS_ONE',
        objectType: 'account',
        required: true,
        readOnly: false,
      });
      expect(relationships.$owner).toMatchObject({ cardinality: 'HAS_ONE', objectType: 'member', readOnly: false });
      expect(relationships.$note).toMatchObject({ objectType: 'note', readOnly: true });
      expect(relationships.$task).toMatchObject({ objectType: 'task', readOnly: true });
      expect(relationships.$meeting).toMatchObject({ cardinality: 'HAS_MANY', objectType: 'meeting', readOnly: true });
    });

    it('creates an opportunity with every system field, readable from its account', async () => {
      const response = await api.createRaw('opportunity', {
        fields: { $name: 'Big deal', $stage: 'QUALIFIED', $amount: 12500.5, $closeDate: '2026-06-30T17:00:00-07:00' },
        relationships: { $account: [account], $owner: ws.memberId },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: expect.stringMatching(new RegExp(`^opp_${ULID}$`)),
        createdAt: expect.stringMatching(ISO_DATE),
        updatedAt: null,
        version: 1,
        httpLink: null,
        externalId: null,
        fields: {
          $name: { value: 'Big deal', valueType: 'TEXT' },
          $stage: { value: 'QUALIFIED', valueType: 'SINGLE_SELECT' },
          $amount: { value: 12500.5, valueType: 'CURRENCY' },
          $closeDate: { value: '2026-07-01T00:00:00.000Z', valueType: 'DATETIME' },
        },
        relationships: {
          $account: { cardinality: 'has_one', objectType: 'account', values: [account] },
          $owner: { cardinality: 'has_one', objectType: 'member', values: [ws.memberId] },
          $note: { cardinality: 'has_many', objectType: 'note', values: [] },
          $task: { cardinality: 'has_many', objectType: 'task', values: [] },
          $meeting: { cardinality: 'has_many', objectType: 'meeting', values: [] },
        },
      });
      expect((await api.retrieve('account', account)).relationships.$opportunity.values).toContain(response.body.id);
      expect(await api.retrieve('opportunity', response.body.id)).toEqual(response.body);
    });

    it('accepts every stage on create and update', async () => {
      for (const stage of ['LEAD', 'QUALIFIED', 'PROPOSAL', 'NEGOTIATION', 'WON', 'LOST']) {
        const created = await api.opportunity(account, stage, { fields: { $stage: stage } });
        expect(created.fields.$stage.value).toBe(stage);
        const updated = await api.update('opportunity', created.id, { fields: { $stage: 'WON' } });
        expect(updated.fields.$stage.value).toBe('WON');
      }
    });

    it('moves between accounts, and both accounts see it', async () => {
      const second = (await api.account('Second buyer')).id;
      const opp = await api.opportunity(account, 'Mover');
      const moved = await api.update('opportunity', opp.id, { relationships: { $account: { replace: second } } });
      expect(moved.relationships.$account.values).toEqual([second]);
      expect((await api.retrieve('account', account)).relationships.$opportunity.values).not.toContain(opp.id);
      expect((await api.retrieve('account', second)).relationships.$opportunity.values).toEqual([opp.id]);
      const amount = await api.update('opportunity', opp.id, {
        fields: { $amount: 0, $closeDate: '2027-01-01T00:00:00Z' },
      });
      expect(amount.fields.$amount.value).toBe(0);
      expect(amount.fields.$closeDate.value).toBe('2027-01-01T00:00:00.000Z');
      const cleared = await api.update('opportunity', opp.id, { fields: { $amount: null, $closeDate: null } });
      expect(cleared.fields.$amount.value).toBeNull();
      expect(cleared.fields.$closeDate.value).toBeNull();
    });

    const withAccount = (body: Record<string, unknown>) => (accountId: string) => ({
      ...body,
      relationships: { $account: accountId },
    });
    it.each([
      ['no $name', withAccount({ fields: { $stage: 'LEAD' } }), 422, 'parameter_missing', 'fields.$name'],
      ['no $stage', withAccount({ fields: { $name: 'x' } }), 422, 'parameter_missing', 'fields.$stage'],
      [
        'a null $stage',
        withAccount({ fields: { $name: 'x', $stage: null } }),
        422,
        'parameter_missing',
        'fields.$stage',
      ],
      [
        'a null $name',
        withAccount({ fields: { $name: null, $stage: 'LEAD' } }),
        422,
        'parameter_missing',
        'fields.$name',
      ],
      [
        'no $account',
        () => ({ fields: { $name: 'x', $stage: 'LEAD' }, relationships: {} }),
        422,
        'parameter_missing',
        'relationships.$account',
      ],
      [
        'no relationships at all',
        () => ({ fields: { $name: 'x', $stage: 'LEAD' } }),
        422,
        'parameter_missing',
        'relationships.$account',
      ],
      [
        'an empty $account',
        () => ({ fields: { $name: 'x', $stage: 'LEAD' }, relationships: { $account: [] } }),
        422,
        'parameter_missing',
        'relationships.$account',
      ],
      [
        'a stage outside the enum',
        withAccount({ fields: { $name: 'x', $stage: 'CLOSED' } }),
        400,
        'invalid_type',
        'fields.$stage',
      ],
      [
        'a stage in lower case',
        withAccount({ fields: { $name: 'x', $stage: 'lead' } }),
        400,
        'invalid_type',
        'fields.$stage',
      ],
      [
        'an amount as a string',
        withAccount({ fields: { $name: 'x', $stage: 'LEAD', $amount: '100' } }),
        400,
        'invalid_type',
        'fields.$amount',
      ],
      [
        'a close date without time',
        withAccount({ fields: { $name: 'x', $stage: 'LEAD', $closeDate: '2026-06-30' } }),
        422,
        'invalid_value',
        'fields.$closeDate',
      ],
      [
        'a close date without offset',
        withAccount({ fields: { $name: 'x', $stage: 'LEAD', $closeDate: '2026-06-30T10:00:00' } }),
        422,
        'invalid_value',
        'fields.$closeDate',
      ],
      [
        'an impossible close date',
        withAccount({ fields: { $name: 'x', $stage: 'LEAD', $closeDate: '2026-02-30T10:00:00Z' } }),
        422,
        'invalid_value',
        'fields.$closeDate',
      ],
    ])('refuses a create with %s', async (_case, body, status, code, param) => {
      expectError(await api.createRaw('opportunity', body(account)), status, code, param);
    });

    it('validates updates too, and keeps $stage and $name required', async () => {
      const opp = await api.opportunity(account, 'Keeper');
      expectError(
        await api.updateRaw('opportunity', opp.id, { fields: { $stage: null } }),
        422,
        'parameter_missing',
        'fields.$stage',
      );
      expectError(
        await api.updateRaw('opportunity', opp.id, { fields: { $name: null } }),
        422,
        'parameter_missing',
        'fields.$name',
      );
      expectError(
        await api.updateRaw('opportunity', opp.id, { fields: { $stage: 'DONE' } }),
        400,
        'invalid_type',
        'fields.$stage',
      );
      expect(await api.retrieve('opportunity', opp.id)).toEqual(opp);
    });
  });

  describe('scopes', () => {
    const types: [RecordType, string][] = [
      ['account', 'accounts'],
      ['contact', 'contacts'],
      ['opportunity', 'opportunities'],
    ];
    const bodyOf = async (type: RecordType): Promise<Record<string, unknown>> =>
      type === 'account'
        ? { fields: { $name: 'Scoped' } }
        : type === 'contact'
          ? { fields: { $name: { firstName: 'Scoped' } } }
          : {
              fields: { $name: 'Scoped', $stage: 'LEAD' },
              relationships: { $account: (await api.account('Scoped')).id },
            };

    it.each(types)(
      '%s routes need %s:read, :create and :update, each refused with 403 without it',
      async (type, plural) => {
        const member = await createMember(t.http, ws.workspaceId);
        const keyWith = async (scopes: string[]) =>
          api.as((await createKey(t.http, ws.workspaceId, member.id, scopes)).key);
        const reader = await keyWith([`${plural}:read`]);
        const creator = await keyWith([`${plural}:create`]);
        const updater = await keyWith([`${plural}:update`]);
        const others = await keyWith(
          types.filter(([other]) => other !== type).flatMap(([, p]) => [`${p}:read`, `${p}:create`, `${p}:update`]),
        );
        const existing = await api.create(type, await bodyOf(type));

        // read
        for (const client of [creator, updater, others]) {
          expectError(await client.retrieveRaw(type, existing.id), 403, 'insufficient_scope');
          expectError(await client.list(type), 403, 'insufficient_scope');
          expectError(await client.definitions(type), 403, 'insufficient_scope');
        }
        expect((await reader.retrieveRaw(type, existing.id)).status).toBe(200);
        expect((await reader.list(type)).status).toBe(200);
        expect((await reader.definitions(type)).status).toBe(200);
        // create
        for (const client of [reader, updater, others]) {
          const refused = await client.createRaw(type, await bodyOf(type));
          expectError(refused, 403, 'insufficient_scope');
          expect(refused.body.error.message).toContain(`${plural}:create`);
        }
        expect((await creator.createRaw(type, await bodyOf(type))).status).toBe(200);
        // update
        for (const client of [reader, creator, others]) {
          expectError(await client.updateRaw(type, existing.id, { fields: {} }), 403, 'insufficient_scope');
        }
        expect((await updater.updateRaw(type, existing.id, { fields: {} })).status).toBe(200);
      },
    );
  });

  describe('system relationships', () => {
    it('links an account $owner to a member of the workspace only', async () => {
      const member = await createMember(t.http, ws.workspaceId);
      const owned = await api.account('Owned', { relationships: { $owner: member.id } });
      expect(owned.relationships.$owner).toEqual({ cardinality: 'has_one', objectType: 'member', values: [member.id] });
      const replaced = await api.update('account', owned.id, { relationships: { $owner: { replace: ws.memberId } } });
      expect(replaced.relationships.$owner.values).toEqual([ws.memberId]);
      const removed = await api.update('account', owned.id, { relationships: { $owner: { remove: ws.memberId } } });
      expect(removed.relationships.$owner.values).toEqual([]);
      expectError(
        await api.createRaw('account', { fields: { $name: 'x' }, relationships: { $owner: other.memberId } }),
        422,
        'relationship_entity_missing',
        'relationships.$owner',
      );
      expectError(
        await api.updateRaw('account', owned.id, { relationships: { $owner: { add: other.memberId } } }),
        422,
        'relationship_entity_missing',
        'relationships.$owner',
      );
    });

    it('links account $contact and contact $account as one link, writable from both ends', async () => {
      const a = await api.account('A');
      const c1 = await api.contact('One', { relationships: { $account: a.id } });
      expect((await api.retrieve('account', a.id)).relationships.$contact.values).toEqual([c1.id]);

      const c2 = await api.contact('Two');
      const added = await api.update('account', a.id, { relationships: { $contact: { add: [c2.id] } } });
      expect(added.relationships.$contact.values).toEqual([c1.id, c2.id]);
      expect((await api.retrieve('contact', c2.id)).relationships.$account.values).toEqual([a.id]);

      const removed = await api.update('account', a.id, { relationships: { $contact: { remove: c1.id } } });
      expect(removed.relationships.$contact.values).toEqual([c2.id]);
      expect((await api.retrieve('contact', c1.id)).relationships.$account.values).toEqual([]);

      const fromContact = await api.update('contact', c1.id, { relationships: { $account: { replace: a.id } } });
      expect(fromContact.relationships.$account.values).toEqual([a.id]);
      expect((await api.retrieve('account', a.id)).relationships.$contact.values.sort()).toEqual([c1.id, c2.id].sort());

      const replaced = await api.update('account', a.id, { relationships: { $contact: { replace: [c2.id] } } });
      expect(replaced.relationships.$contact.values).toEqual([c2.id]);
      expect((await api.retrieve('contact', c1.id)).relationships.$account.values).toEqual([]);
    });

    it('moves a contact from account A to account B when B adds it: contact $account is HAS_ONE', async () => {
      const a = await api.account('A');
      const contact = await api.contact('Mover', { relationships: { $account: a.id } });
      const b = await api.account('B', { relationships: { $contact: [contact.id] } });
      expect(b.relationships.$contact.values).toEqual([contact.id]);
      expect((await api.retrieve('contact', contact.id)).relationships.$account.values).toEqual([b.id]);
      expect((await api.retrieve('account', a.id)).relationships.$contact.values).toEqual([]);

      const backToA = await api.update('account', a.id, { relationships: { $contact: { add: contact.id } } });
      expect(backToA.relationships.$contact.values).toEqual([contact.id]);
      expect((await api.retrieve('account', b.id)).relationships.$contact.values).toEqual([]);
      expect((await api.retrieve('contact', contact.id)).relationships.$account.values).toEqual([a.id]);

      const viaContact = await api.update('contact', contact.id, { relationships: { $account: { replace: b.id } } });
      expect(viaContact.relationships.$account.values).toEqual([b.id]);
      expect((await api.retrieve('account', a.id)).relationships.$contact.values).toEqual([]);
      expect((await api.retrieve('account', b.id)).relationships.$contact.values).toEqual([contact.id]);
    });

    it('keeps a contact on one account when several accounts add it at once', async () => {
      for (let round = 0; round < 3; round += 1) {
        const contact = await api.contact(`Contested ${round}`);
        const accounts = await Promise.all(Array.from({ length: 6 }, (_, i) => api.account(`Contender ${round}.${i}`)));
        const responses = await Promise.all(
          accounts.map((account) =>
            api.updateRaw('account', account.id, { relationships: { $contact: { add: contact.id } } }),
          ),
        );
        expect(responses.map((response) => response.status)).toEqual(accounts.map(() => 200));
        const owner = (await api.retrieve('contact', contact.id)).relationships.$account.values;
        expect(owner).toHaveLength(1);
        for (const account of accounts) {
          const values = (await api.retrieve('account', account.id)).relationships.$contact.values;
          expect({ account: account.id, values }).toEqual({
            account: account.id,
            values: account.id === owner[0] ? [contact.id] : [],
          });
        }
      }
    });

    it('shows notes, tasks and opportunities on the account, and refuses writes of those inverses', async () => {
      const account = await api.account('Hub');
      const opportunity = await api.opportunity(account.id);
      const note = await api.create('note', { fields: { $title: 'n' }, relationships: { $account: account.id } });
      const task = await api.create('task', {
        fields: { $title: 't', $status: 'TODO' },
        relationships: { $assignedTo: ws.memberId, $account: account.id, $opportunity: opportunity.id },
      });
      const read = await api.retrieve('account', account.id);
      expect(read.relationships.$opportunity.values).toEqual([opportunity.id]);
      expect(read.relationships.$note.values).toEqual([note.id]);
      expect(read.relationships.$task.values).toEqual([task.id]);
      expect((await api.retrieve('opportunity', opportunity.id)).relationships.$task.values).toEqual([task.id]);

      // Read-only is refused before any id is looked up: a well-formed meeting id will do.
      const ids = {
        $opportunity: opportunity.id,
        $note: note.id,
        $task: task.id,
        $meeting: 'mtg_01AAAAAAAAAAAAAAAAAAAAAAAA',
      };
      for (const [key, id] of Object.entries(ids)) {
        const param = `relationships.${key}`;
        expectError(
          await api.createRaw('account', { fields: { $name: 'x' }, relationships: { [key]: id } }),
          422,
          'read_only_field',
          param,
        );
        for (const operation of ['add', 'remove', 'replace']) {
          expectError(
            await api.updateRaw('account', account.id, { relationships: { [key]: { [operation]: id } } }),
            422,
            'read_only_field',
            param,
          );
        }
      }
      expect(await api.retrieve('account', account.id)).toEqual(read);
      for (const key of ['$note', '$task', '$meeting']) {
        expectError(
          await api.createRaw('opportunity', {
            fields: { $name: 'x', $stage: 'LEAD' },
            relationships: { $account: account.id, [key]: [] },
          }),
          422,
          'read_only_field',
          `relationships.${key}`,
        );
      }
    });
  });

  describe('externalId', () => {
    it('is stored, unique per workspace and type, allowed again elsewhere, and cleared by null', async () => {
      const externalId = `crm-${Date.now()}`;
      const first = await api.account('First', {});
      const withId = await api.update('account', first.id, { externalId });
      expect(withId.externalId).toBe(externalId);
      expect((await api.retrieve('account', first.id)).externalId).toBe(externalId);
      // Omitted on update: kept.
      expect((await api.update('account', first.id, { fields: { $name: 'First!' } })).externalId).toBe(externalId);

      expectError(
        await api.createRaw('account', { fields: { $name: 'Second' }, externalId }),
        409,
        'duplicate_value',
        'externalId',
      );
      const second = await api.account('Second');
      expectError(await api.updateRaw('account', second.id, { externalId }), 409, 'duplicate_value', 'externalId');
      // Writing its own externalId again is no conflict.
      expect((await api.update('account', first.id, { externalId })).externalId).toBe(externalId);

      // Same externalId on another type, and in another workspace.
      const contact = await api.create('contact', { fields: {}, externalId });
      expect(contact.externalId).toBe(externalId);
      const opportunity = await api.create('opportunity', {
        fields: { $name: 'o', $stage: 'LEAD' },
        relationships: { $account: first.id },
        externalId,
      });
      expect(opportunity.externalId).toBe(externalId);
      expect((await otherApi.create('account', { fields: { $name: 'Elsewhere' }, externalId })).externalId).toBe(
        externalId,
      );

      // null clears, and frees the value.
      const cleared = await api.update('account', first.id, { externalId: null });
      expect(cleared.externalId).toBeNull();
      expect((await api.update('account', second.id, { externalId })).externalId).toBe(externalId);
    });

    it('reads null on create as absent: no externalId, and it may be set later', async () => {
      const account = await api.create('account', { fields: { $name: 'No id' }, externalId: null });
      expect(account.externalId).toBeNull();
      expect((await api.update('account', account.id, { externalId: null })).externalId).toBeNull();
      const externalId = `late-${Date.now()}`;
      expect((await api.update('account', account.id, { externalId })).externalId).toBe(externalId);
    });

    it.each([
      ['a number', 42, 400, 'invalid_type'],
      ['an array', ['x'], 400, 'invalid_type'],
      ['empty', '', 422, 'invalid_value'],
      ['256 characters', 'x'.repeat(256), 422, 'invalid_value'],
    ])('refuses an externalId that is %s', async (_case, externalId, status, code) => {
      expectError(await api.createRaw('account', { fields: { $name: 'x' }, externalId }), status, code, 'externalId');
      const account = await api.account('x');
      expectError(await api.updateRaw('account', account.id, { externalId }), status, code, 'externalId');
    });

    it('accepts 255 characters', async () => {
      const externalId = `${Date.now()}`.padEnd(255, 'x');
      expect((await api.create('contact', { fields: {}, externalId })).externalId).toBe(externalId);
    });

    it('lets exactly one of concurrent creates with the same externalId succeed', async () => {
      const externalId = `race-${Date.now()}`;
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, i) => api.createRaw('account', { fields: { $name: `racer ${i}` }, externalId })),
      );
      expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
      for (const response of responses.filter((r) => r.status !== 200))
        expectError(response, 409, 'duplicate_value', 'externalId');
    });
  });
});

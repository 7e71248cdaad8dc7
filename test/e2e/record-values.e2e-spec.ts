import { concurrently } from '../support/concurrency';
import { expectError } from '../support/errors';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { DefinitionsBody, RecordsApi } from '../support/records';
import { adminHeaders, createTestApp, TestApp } from '../support/test-app';

/** A write that is refused: the value, then status, code and the param below `fields.<key>`. */
type Bad = [label: string, value: unknown, status: number, code: string, paramSuffix?: string];

interface ValueCase {
  valueType: string;
  key: string;
  typeConfiguration?: Record<string, unknown>;
  /** Written value → value read back. */
  good: [written: unknown, read: unknown][];
  bad: Bad[];
}

const LONG_TEXT = 'x'.repeat(10_000);

/**
 * Every one of the 14 value types (docs/api.md §7), each as a custom field on account. Option ids are
 * given where the read-back must be known; `opt_` ids are generated otherwise.
 */
const CASES: ValueCase[] = [
  {
    valueType: 'TEXT',
    key: 'textValue',
    good: [
      ['hello', 'hello'],
      ['  kept as written  ', '  kept as written  '],
      ['', ''],
      ['ünïcødé ✓ 🎉', 'ünïcødé ✓ 🎉'],
      [LONG_TEXT, LONG_TEXT],
      // 10,000 characters that are 20,000 UTF-16 units: counted as characters.
      ['🎉'.repeat(10_000), '🎉'.repeat(10_000)],
    ],
    bad: [
      ['a number', 5, 400, 'invalid_type'],
      ['a boolean', true, 400, 'invalid_type'],
      ['an array', ['a'], 400, 'invalid_type'],
      ['an object', { a: 1 }, 400, 'invalid_type'],
      ['10,001 characters', `${LONG_TEXT}x`, 422, 'invalid_value'],
      ['a NUL character', 'a\u0000b', 422, 'invalid_value'],
    ],
  },
  {
    valueType: 'MARKDOWN',
    key: 'markdownValue',
    good: [
      ['# Title\n\n* one\n* two', '# Title\n\n* one\n* two'],
      ['x'.repeat(20_000), 'x'.repeat(20_000)],
    ],
    bad: [
      ['a number', 1, 400, 'invalid_type'],
      ['an array', ['# x'], 400, 'invalid_type'],
      ['1,000,001 characters', 'x'.repeat(1_000_001), 422, 'invalid_value'],
    ],
  },
  {
    valueType: 'NUMBER',
    key: 'numberValue',
    good: [
      [42, 42],
      [-1.5, -1.5],
      [0, 0],
      [1e21, 1e21],
    ],
    bad: [
      ['a numeric string', '42', 400, 'invalid_type'],
      ['a boolean', true, 400, 'invalid_type'],
      ['an array', [1], 400, 'invalid_type'],
      ['an object', { amount: 1 }, 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'CURRENCY',
    key: 'currencyValue',
    typeConfiguration: { currency: 'EUR' },
    good: [
      [19.99, 19.99],
      [0, 0],
      [-250, -250],
    ],
    bad: [
      ['a string amount', '19.99', 400, 'invalid_type'],
      ['an amount with currency', { amount: 1, currency: 'EUR' }, 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'CHECKBOX',
    key: 'checkboxValue',
    good: [
      [true, true],
      [false, false],
    ],
    bad: [
      ['the string "true"', 'true', 400, 'invalid_type'],
      ['1', 1, 400, 'invalid_type'],
      ['an array', [true], 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'DATETIME',
    key: 'datetimeValue',
    good: [
      ['2026-01-02T03:04:05+02:00', '2026-01-02T01:04:05.000Z'],
      ['2026-01-02T03:04:05.123Z', '2026-01-02T03:04:05.123Z'],
      ['2026-01-02T03:04Z', '2026-01-02T03:04:00.000Z'],
      ['2025-12-31T23:30:00-01:00', '2026-01-01T00:30:00.000Z'],
    ],
    bad: [
      ['a date only', '2026-01-02', 422, 'invalid_value'],
      ['no offset', '2026-01-02T03:04:05', 422, 'invalid_value'],
      ['an impossible date', '2026-02-30T00:00:00Z', 422, 'invalid_value'],
      ['an impossible hour', '2026-01-02T24:00:00Z', 422, 'invalid_value'],
      ['words', 'tomorrow', 422, 'invalid_value'],
      ['a timestamp number', 1767323045000, 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'EMAIL',
    key: 'emailValue',
    good: [
      ['Ada@Example.COM', 'ada@example.com'],
      ['  grace@navy.example ', 'grace@navy.example'],
      ['first.last+tag@sub.example.co.uk', 'first.last+tag@sub.example.co.uk'],
    ],
    bad: [
      ['no domain', 'ada@', 422, 'invalid_value'],
      ['no @', 'ada', 422, 'invalid_value'],
      ['a space inside', 'a b@example.com', 422, 'invalid_value'],
      ['a domain without a dot', 'ada@localhost', 422, 'invalid_value'],
      ['two addresses', 'a@example.com, b@example.com', 422, 'invalid_value'],
      ['a number', 5, 400, 'invalid_type'],
      ['an array on a single-valued field', ['a@example.com'], 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'EMAIL',
    key: 'emailList',
    typeConfiguration: { multipleValues: true },
    good: [
      [
        ['a@one.example', 'B@Two.example'],
        ['a@one.example', 'b@two.example'],
      ],
      ['c@three.example', ['c@three.example']],
      [[], []],
    ],
    bad: [
      ['a bad second item', ['a@one.example', 'bad'], 422, 'invalid_value', '[1]'],
      ['a number item', [1], 400, 'invalid_type', '[0]'],
      ['101 items', Array.from({ length: 101 }, (_, i) => `e${i}@example.com`), 422, 'invalid_value'],
    ],
  },
  {
    valueType: 'URL',
    key: 'urlValue',
    good: [
      ['https://example.com/a?b=c#d', 'https://example.com/a?b=c#d'],
      [' http://x.example ', 'http://x.example'],
      ['HTTPS://Upper.Example/Path', 'HTTPS://Upper.Example/Path'],
    ],
    bad: [
      ['no scheme', 'example.com', 422, 'invalid_value'],
      ['another scheme', 'ftp://x.example', 422, 'invalid_value'],
      ['no host', 'https://', 422, 'invalid_value'],
      ['a space inside', 'https://exa mple.com', 422, 'invalid_value'],
      ['2049 characters', `https://x.example/${'a'.repeat(2031)}`, 422, 'invalid_value'],
      ['a number', 5, 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'TELEPHONE',
    key: 'phoneValue',
    good: [
      ['+1 415 555 0100', '+14155550100'],
      ['+1 (415) 555-0100', '+14155550100'],
      ['0044 20 7946 0958', '+442079460958'],
      ['+44 (0)20 7946 0958', '+442079460958'],
      ['+49.30.123456', '+4930123456'],
    ],
    bad: [
      ['no country code', '4155550100', 422, 'invalid_value'],
      ['letters', 'call me', 422, 'invalid_value'],
      ['too short', '+1 23', 422, 'invalid_value'],
      ['16 digits', '+1 2345 6789 0123 456', 422, 'invalid_value'],
      ['a number', 14155550100, 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'SINGLE_SELECT',
    key: 'priority',
    typeConfiguration: {
      options: [
        { id: 'opt_low', label: 'Low' },
        { id: 'opt_high', label: 'High', description: 'Urgent' },
      ],
    },
    good: [
      ['Low', 'opt_low'],
      ['opt_low', 'opt_low'],
      ['High', 'opt_high'],
    ],
    bad: [
      ['a label not in the set', 'Medium', 400, 'invalid_type'],
      ['a label in another case', 'low', 400, 'invalid_type'],
      ['a number', 1, 400, 'invalid_type'],
      ['an array', ['Low'], 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'MULTI_SELECT',
    key: 'colours',
    typeConfiguration: {
      options: [
        { id: 'opt_red', label: 'Red' },
        { id: 'opt_green', label: 'Green' },
        { id: 'opt_blue', label: 'Blue' },
      ],
    },
    good: [
      [
        ['Red', 'opt_green'],
        ['opt_red', 'opt_green'],
      ],
      [
        ['Blue', 'opt_blue', 'Red'],
        ['opt_blue', 'opt_red'],
      ],
      [[], []],
    ],
    bad: [
      ['a single label', 'Red', 400, 'invalid_type'],
      ['an option not in the set', ['Red', 'Purple'], 400, 'invalid_type', '[1]'],
      ['a number item', [1], 400, 'invalid_type', '[0]'],
      ['101 items', Array.from({ length: 101 }, () => 'Red'), 422, 'invalid_value'],
    ],
  },
  {
    valueType: 'SOCIAL_HANDLE',
    key: 'handle',
    typeConfiguration: { handleService: 'TWITTER' },
    good: [
      ['@ada', '@ada'],
      ['  @ada  ', '@ada'],
      ['https://twitter.com/ada', 'https://twitter.com/ada'],
    ],
    bad: [
      ['a number', 5, 400, 'invalid_type'],
      ['an array', ['@ada'], 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'ADDRESS',
    key: 'office',
    good: [
      [
        {
          street: '1 Main St',
          street2: 'Floor 2',
          city: 'Springfield',
          state: 'OR',
          postalCode: '97477',
          country: 'us',
          latitude: 45.5,
          longitude: -122.6,
        },
        {
          street: '1 Main St',
          street2: 'Floor 2',
          city: 'Springfield',
          state: 'OR',
          postalCode: '97477',
          country: 'US',
          latitude: 45.5,
          longitude: -122.6,
        },
      ],
      [{ city: 'Paris', street: null }, { city: 'Paris' }],
      [
        { latitude: -90, longitude: 180 },
        { latitude: -90, longitude: 180 },
      ],
      [{}, {}],
    ],
    bad: [
      ['an unknown member', { zip: '97477' }, 400, 'unknown_field', '.zip'],
      ['a three-letter country', { country: 'USA' }, 422, 'invalid_value', '.country'],
      ['a numeric country', { country: '12' }, 422, 'invalid_value', '.country'],
      ['a latitude beyond 90', { latitude: 91 }, 422, 'invalid_value', '.latitude'],
      ['a longitude beyond 180', { longitude: -180.5 }, 422, 'invalid_value', '.longitude'],
      ['a latitude as a string', { latitude: '45' }, 400, 'invalid_type', '.latitude'],
      ['a city as a number', { city: 5 }, 400, 'invalid_type', '.city'],
      ['a string', '1 Main St', 400, 'invalid_type'],
      ['an array', [{ city: 'Paris' }], 400, 'invalid_type'],
    ],
  },
  {
    valueType: 'FULL_NAME',
    key: 'fullName',
    good: [
      [
        { firstName: 'Ada', lastName: 'Lovelace' },
        { firstName: 'Ada', lastName: 'Lovelace' },
      ],
      [{ firstName: 'Ada' }, { firstName: 'Ada' }],
      [{ lastName: 'Hopper', firstName: null }, { lastName: 'Hopper' }],
    ],
    bad: [
      ['an unknown member', { middleName: 'B' }, 400, 'unknown_field', '.middleName'],
      ['a string', 'Ada Lovelace', 400, 'invalid_type'],
      ['a number member', { firstName: 1 }, 400, 'invalid_type', '.firstName'],
      ['10,001 characters', { lastName: `${LONG_TEXT}x` }, 422, 'invalid_value', '.lastName'],
    ],
  },
];

describe('record values: the 14 value types as custom fields', () => {
  let t: TestApp;
  let openapi: OpenApiValidator;
  let ws: TestWorkspace;
  let api: RecordsApi;

  beforeAll(async () => {
    t = await createTestApp();
    openapi = new OpenApiValidator(t.document);
    ws = await createWorkspace(t.http);
    api = new RecordsApi(t, openapi, ws.key, ws.workspaceId);
  });
  afterAll(() => t.close());

  it('covers every value type of the spec', () => {
    expect([...new Set(CASES.map((c) => c.valueType))].sort()).toEqual([
      'ADDRESS',
      'CHECKBOX',
      'CURRENCY',
      'DATETIME',
      'EMAIL',
      'FULL_NAME',
      'MARKDOWN',
      'MULTI_SELECT',
      'NUMBER',
      'SINGLE_SELECT',
      'SOCIAL_HANDLE',
      'TELEPHONE',
      'TEXT',
      'URL',
    ]);
  });

  describe.each(CASES.map((c) => [`${c.valueType} ${c.key}`, c] as const))('%s', (_name, c) => {
    let definitions: DefinitionsBody;

    beforeAll(async () => {
      definitions = await api.addField('account', {
        key: c.key,
        label: `Custom ${c.valueType}`,
        valueType: c.valueType,
        description: `A ${c.valueType} field`,
        ...(c.typeConfiguration && { typeConfiguration: c.typeConfiguration }),
      });
    });

    it('is defined on account as the operator added it', async () => {
      expect(definitions.objectType).toBe('account');
      const expectedConfiguration = c.typeConfiguration?.options
        ? {
            ...c.typeConfiguration,
            options: (c.typeConfiguration.options as { id: string; label: string; description?: string }[]).map(
              (option) => ({
                description: null,
                ...option,
              }),
            ),
          }
        : (c.typeConfiguration ?? {});
      const expected = {
        id: expect.stringMatching(/^fld_/),
        label: `Custom ${c.valueType}`,
        description: `A ${c.valueType} field`,
        valueType: c.valueType,
        typeConfiguration: expectedConfiguration,
        readOnly: false,
        required: false,
      };
      expect(definitions.fieldDefinitions[c.key]).toEqual(expected);
      const served = await api.definitions('account');
      expect(served.status).toBe(200);
      expect(served.body.fieldDefinitions[c.key]).toEqual(expected);
      // The system fields are still there.
      expect(served.body.fieldDefinitions.$name.valueType).toBe('TEXT');
    });

    it('reads back each good value as {value, valueType} on create, retrieve, update and list', async () => {
      let previous: string | undefined;
      for (const [written, read] of c.good) {
        const created = await api.createRaw('account', { fields: { $name: `${c.key} good`, [c.key]: written } });
        expect({ written, status: created.status, body: created.body.fields?.[c.key] }).toEqual({
          written,
          status: 200,
          body: { value: read, valueType: c.valueType },
        });
        expect((await api.retrieve('account', created.body.id)).fields[c.key]).toEqual({
          value: read,
          valueType: c.valueType,
        });
        // Update an earlier record to this value: only this field changes.
        if (previous) {
          const updated = await api.update('account', previous, { fields: { [c.key]: written } });
          expect(updated.fields[c.key]).toEqual({ value: read, valueType: c.valueType });
          expect(updated.fields.$name.value).toBe(`${c.key} good`);
        }
        previous = created.body.id;
      }
      const list = await api.list('account', { limit: 1 });
      expect(list.body.data[0].id).toBe(previous);
      expect(list.body.data[0].fields[c.key]).toEqual({ value: c.good[c.good.length - 1][1], valueType: c.valueType });
    });

    it('reads null when unset, and null clears the value', async () => {
      const unset = await api.account(`${c.key} unset`);
      expect(unset.fields[c.key]).toEqual({ value: null, valueType: c.valueType });
      const set = await api.account(`${c.key} set`, { fields: { [c.key]: c.good[0][0] } });
      expect(set.fields[c.key].value).toEqual(c.good[0][1]);
      const cleared = await api.update('account', set.id, { fields: { [c.key]: null } });
      expect(cleared.fields[c.key]).toEqual({ value: null, valueType: c.valueType });
      expect((await api.retrieve('account', set.id)).fields[c.key].value).toBeNull();
      const createdNull = await api.account(`${c.key} null`, { fields: { [c.key]: null } });
      expect(createdNull.fields[c.key].value).toBeNull();
    });

    it.each(c.bad)(
      'refuses %s with the code of docs/api.md §2, on create and update',
      async (_label, value, status, code, suffix = '') => {
        const param = `fields.${c.key}${suffix}`;
        expectError(await api.createRaw('account', { fields: { $name: 'bad', [c.key]: value } }), status, code, param);
        const existing = await api.account(`${c.key} kept`, { fields: { [c.key]: c.good[0][0] } });
        expectError(await api.updateRaw('account', existing.id, { fields: { [c.key]: value } }), status, code, param);
        expect((await api.retrieve('account', existing.id)).fields[c.key].value).toEqual(c.good[0][1]);
      },
    );
  });

  it('generates option ids when the operator gives none, and reads the option id back', async () => {
    const definitions = await api.addField('account', {
      key: 'tier',
      label: 'Tier',
      valueType: 'SINGLE_SELECT',
      typeConfiguration: { options: [{ label: 'Gold' }, { label: 'Silver', description: 'Second' }] },
    });
    const options = definitions.fieldDefinitions.tier.typeConfiguration.options as {
      id: string;
      label: string;
      description: string | null;
    }[];
    expect(options).toEqual([
      { id: expect.stringMatching(/^opt_[0-9A-Z]{26}$/), label: 'Gold', description: null },
      { id: expect.stringMatching(/^opt_[0-9A-Z]{26}$/), label: 'Silver', description: 'Second' },
    ]);
    const created = await api.account('Tiered', { fields: { tier: 'Silver' } });
    expect(created.fields.tier).toEqual({ value: options[1].id, valueType: 'SINGLE_SELECT' });
    const byId = await api.update('account', created.id, { fields: { tier: options[0].id } });
    expect(byId.fields.tier.value).toBe(options[0].id);
  });

  it('takes several custom fields and system fields in one write', async () => {
    const created = await api.account('Many', {
      fields: { numberValue: 7, checkboxValue: true, priority: 'High', office: { city: 'Oslo', country: 'no' } },
    });
    expect(created.fields.numberValue.value).toBe(7);
    expect(created.fields.checkboxValue.value).toBe(true);
    expect(created.fields.priority.value).toBe('opt_high');
    expect(created.fields.office.value).toEqual({ city: 'Oslo', country: 'NO' });
    const updated = await api.update('account', created.id, { fields: { numberValue: 8, $name: 'Many 2' } });
    expect(updated.fields.checkboxValue.value).toBe(true);
    expect(updated.fields.numberValue.value).toBe(8);
    expect(updated.fields.$name.value).toBe('Many 2');
    // One bad field refuses the whole write.
    expectError(
      await api.updateRaw('account', created.id, { fields: { numberValue: 9, emailValue: 'bad' } }),
      422,
      'invalid_value',
      'fields.emailValue',
    );
    expect((await api.retrieve('account', created.id)).fields.numberValue.value).toBe(8);
  });

  describe('required custom fields', () => {
    let required: RecordsApi;
    beforeAll(async () => {
      const fresh = await createWorkspace(t.http);
      required = api.as(fresh.key, fresh.workspaceId);
      const before = await required.account('Before the rule');
      await required.addField('account', { key: 'region', label: 'Region', valueType: 'TEXT', required: true });
      // Records created before the field was required may still be updated without it.
      const updated = await required.update('account', before.id, { fields: { $name: 'Renamed' } });
      expect(updated.fields.region.value).toBeNull();
    });

    it('is defined as required', async () => {
      const definitions = await required.definitions('account');
      expect(definitions.body.fieldDefinitions.region).toMatchObject({
        required: true,
        readOnly: false,
        valueType: 'TEXT',
      });
    });

    it('answers 422 parameter_missing on a create without it, or with null', async () => {
      expectError(
        await required.createRaw('account', { fields: { $name: 'x' } }),
        422,
        'parameter_missing',
        'fields.region',
      );
      expectError(
        await required.createRaw('account', { fields: { $name: 'x', region: null } }),
        422,
        'parameter_missing',
        'fields.region',
      );
      expectError(
        await required.createRaw('account', { fields: { $name: 'x', region: 5 } }),
        400,
        'invalid_type',
        'fields.region',
      );
    });

    it('is kept on update: omitted stays, null is refused', async () => {
      const created = await required.account('Ruled', { fields: { region: 'EMEA' } });
      expect(created.fields.region.value).toBe('EMEA');
      const renamed = await required.update('account', created.id, { fields: { $name: 'Ruled 2' } });
      expect(renamed.fields.region.value).toBe('EMEA');
      expectError(
        await required.updateRaw('account', created.id, { fields: { region: null } }),
        422,
        'parameter_missing',
        'fields.region',
      );
    });
  });

  describe('unique custom fields', () => {
    let unique: RecordsApi;
    beforeAll(async () => {
      const fresh = await createWorkspace(t.http);
      unique = api.as(fresh.key, fresh.workspaceId);
      await unique.addField('account', { key: 'taxId', label: 'Tax id', valueType: 'TEXT', unique: true });
      await unique.addField('account', {
        key: 'ledger',
        label: 'Ledger',
        valueType: 'NUMBER',
        typeConfiguration: { unique: true },
      });
      await unique.addField('contact', { key: 'taxId', label: 'Tax id', valueType: 'TEXT', unique: true });
    });

    it('is defined with typeConfiguration.unique, whichever way the operator said it', async () => {
      const definitions = (await unique.definitions('account')).body;
      expect(definitions.fieldDefinitions.taxId.typeConfiguration).toEqual({ unique: true });
      expect(definitions.fieldDefinitions.ledger.typeConfiguration).toEqual({ unique: true });
    });

    it('answers 409 duplicate_value for a value another record of the type has', async () => {
      const first = await unique.account('First', { fields: { taxId: 'T-1', ledger: 1 } });
      expectError(
        await unique.createRaw('account', { fields: { $name: 'Second', taxId: 'T-1' } }),
        409,
        'duplicate_value',
        'fields.taxId',
      );
      expectError(
        await unique.createRaw('account', { fields: { $name: 'Second', ledger: 1 } }),
        409,
        'duplicate_value',
        'fields.ledger',
      );
      const second = await unique.account('Second', { fields: { taxId: 'T-2', ledger: 2 } });
      expectError(
        await unique.updateRaw('account', second.id, { fields: { taxId: 'T-1' } }),
        409,
        'duplicate_value',
        'fields.taxId',
      );
      expect((await unique.retrieve('account', second.id)).fields.taxId.value).toBe('T-2');
      // Its own value is no conflict; other values, other types and unset values are free.
      expect(
        (await unique.update('account', first.id, { fields: { taxId: 'T-1', ledger: 1 } })).fields.taxId.value,
      ).toBe('T-1');
      expect((await unique.create('contact', { fields: { taxId: 'T-1' } })).fields.taxId.value).toBe('T-1');
      await unique.account('Unset one');
      await unique.account('Unset two');
      await unique.account('Null one', { fields: { taxId: null } });
      // A cleared value is free again.
      await unique.update('account', first.id, { fields: { taxId: null } });
      expect((await unique.update('account', second.id, { fields: { taxId: 'T-1' } })).fields.taxId.value).toBe('T-1');
      // Ledger 1 and 10 are different values.
      expect((await unique.account('Ten', { fields: { ledger: 10 } })).fields.ledger.value).toBe(10);
    });

    it('lets exactly one of concurrent creates with the same value succeed', async () => {
      for (const [round, count] of [
        [1, 2],
        [2, 6],
      ] as const) {
        const value = `RACE-${round}-${Date.now()}`;
        const responses = await concurrently(count, (i) =>
          unique.createRaw('account', { fields: { $name: `racer ${i}`, taxId: value } }),
        );
        expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array(count - 1).fill(409)]);
        for (const response of responses.filter((r) => r.status !== 200))
          expectError(response, 409, 'duplicate_value', 'fields.taxId');
        const matching = await unique.list('account', { taxId: value });
        expect(matching.body.totalCount).toBe(1);
      }
    });

    it('lets exactly one of concurrent updates to the same value succeed', async () => {
      const value = `UPD-${Date.now()}`;
      const records = await Promise.all([unique.account('u1'), unique.account('u2'), unique.account('u3')]);
      const responses = await Promise.all(
        records.map((r) => unique.updateRaw('account', r.id, { fields: { taxId: value } })),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      expect((await unique.list('account', { taxId: value })).body.totalCount).toBe(1);
    });
  });

  describe('operator API for fields and relationships', () => {
    const path = (kind: 'fields' | 'relationships', slug = 'account', workspaceId = ws.workspaceId) =>
      `/admin/v1/workspaces/${workspaceId}/object-types/${slug}/${kind}`;

    it.each([
      ['no key', { label: 'L', valueType: 'TEXT' }, 422, 'parameter_missing', 'key'],
      ['a key with $', { key: '$mine', label: 'L', valueType: 'TEXT' }, 422, 'invalid_value', 'key'],
      ['a key starting upper-case', { key: 'Mine', label: 'L', valueType: 'TEXT' }, 422, 'invalid_value', 'key'],
      [
        'a key of 64 characters',
        { key: `k${'x'.repeat(63)}`, label: 'L', valueType: 'TEXT' },
        422,
        'invalid_value',
        'key',
      ],
      ['the reserved key limit', { key: 'limit', label: 'L', valueType: 'TEXT' }, 422, 'invalid_value', 'key'],
      ['the reserved key offset', { key: 'offset', label: 'L', valueType: 'TEXT' }, 422, 'invalid_value', 'key'],
      ['a numeric key', { key: 5, label: 'L', valueType: 'TEXT' }, 400, 'invalid_type', 'key'],
      ['no label', { key: 'k1', valueType: 'TEXT' }, 422, 'parameter_missing', 'label'],
      ['an empty label', { key: 'k1', label: '', valueType: 'TEXT' }, 422, 'invalid_value', 'label'],
      ['no valueType', { key: 'k1', label: 'L' }, 422, 'parameter_missing', 'valueType'],
      ['an unknown valueType', { key: 'k1', label: 'L', valueType: 'STRING' }, 400, 'invalid_type', 'valueType'],
      [
        'required not a boolean',
        { key: 'k1', label: 'L', valueType: 'TEXT', required: 'yes' },
        400,
        'invalid_type',
        'required',
      ],
      [
        'an unknown member',
        { key: 'k1', label: 'L', valueType: 'TEXT', colour: 'red' },
        400,
        'unknown_field',
        'colour',
      ],
      [
        'a select without options',
        { key: 'k1', label: 'L', valueType: 'SINGLE_SELECT' },
        422,
        'parameter_missing',
        'typeConfiguration.options',
      ],
      [
        'a multi-select with empty options',
        { key: 'k1', label: 'L', valueType: 'MULTI_SELECT', typeConfiguration: { options: [] } },
        422,
        'invalid_value',
        'typeConfiguration.options',
      ],
      [
        'options on a TEXT field',
        { key: 'k1', label: 'L', valueType: 'TEXT', typeConfiguration: { options: [{ label: 'a' }] } },
        422,
        'invalid_value',
        'typeConfiguration.options',
      ],
      [
        'duplicate option labels',
        {
          key: 'k1',
          label: 'L',
          valueType: 'SINGLE_SELECT',
          typeConfiguration: { options: [{ label: 'a' }, { label: 'a' }] },
        },
        422,
        'invalid_value',
        'typeConfiguration.options.1',
      ],
      [
        'duplicate option ids',
        {
          key: 'k1',
          label: 'L',
          valueType: 'SINGLE_SELECT',
          typeConfiguration: {
            options: [
              { id: 'x', label: 'a' },
              { id: 'x', label: 'b' },
            ],
          },
        },
        422,
        'invalid_value',
        'typeConfiguration.options.1',
      ],
      [
        'an option without label',
        { key: 'k1', label: 'L', valueType: 'SINGLE_SELECT', typeConfiguration: { options: [{ id: 'x' }] } },
        422,
        'parameter_missing',
        'typeConfiguration.options.0.label',
      ],
      [
        'a currency that is not ISO 4217',
        { key: 'k1', label: 'L', valueType: 'CURRENCY', typeConfiguration: { currency: 'euro' } },
        422,
        'invalid_value',
        'typeConfiguration.currency',
      ],
      [
        'an unknown handleService',
        { key: 'k1', label: 'L', valueType: 'SOCIAL_HANDLE', typeConfiguration: { handleService: 'MYSPACE' } },
        400,
        'invalid_type',
        'typeConfiguration.handleService',
      ],
      [
        'multipleValues not a boolean',
        { key: 'k1', label: 'L', valueType: 'EMAIL', typeConfiguration: { multipleValues: 'yes' } },
        400,
        'invalid_type',
        'typeConfiguration.multipleValues',
      ],
      [
        'multipleValues on NUMBER',
        { key: 'k1', label: 'L', valueType: 'NUMBER', typeConfiguration: { multipleValues: true } },
        422,
        'invalid_value',
        'typeConfiguration.multipleValues',
      ],
      [
        'multipleValues on CURRENCY',
        { key: 'k1', label: 'L', valueType: 'CURRENCY', typeConfiguration: { multipleValues: true } },
        422,
        'invalid_value',
        'typeConfiguration.multipleValues',
      ],
      [
        'multipleValues on CHECKBOX',
        { key: 'k1', label: 'L', valueType: 'CHECKBOX', typeConfiguration: { multipleValues: true } },
        422,
        'invalid_value',
        'typeConfiguration.multipleValues',
      ],
      [
        'an unknown typeConfiguration member',
        { key: 'k1', label: 'L', valueType: 'TEXT', typeConfiguration: { colour: 'red' } },
        400,
        'unknown_field',
        'typeConfiguration.colour',
      ],
    ])('refuses a field with %s', async (_case, body, status, code, param) => {
      expectError(await api.addFieldRaw('account', body), status, code, param);
    });

    it.each([
      ['no cardinality', { key: 'r1', label: 'L', objectType: 'contact' }, 422, 'parameter_missing', 'cardinality'],
      [
        'an unknown cardinality',
        { key: 'r1', label: 'L', cardinality: 'ONE', objectType: 'contact' },
        400,
        'invalid_type',
        'cardinality',
      ],
      ['no objectType', { key: 'r1', label: 'L', cardinality: 'HAS_ONE' }, 422, 'parameter_missing', 'objectType'],
      [
        'an unknown target type',
        { key: 'r1', label: 'L', cardinality: 'HAS_ONE', objectType: 'widget' },
        422,
        'invalid_value',
        'objectType',
      ],
      [
        'a target type that is not an object type',
        { key: 'r1', label: 'L', cardinality: 'HAS_ONE', objectType: 'workspace' },
        422,
        'invalid_value',
        'objectType',
      ],
      [
        'a key with $',
        { key: '$r', label: 'L', cardinality: 'HAS_ONE', objectType: 'contact' },
        422,
        'invalid_value',
        'key',
      ],
      [
        'an inverseKey with $',
        { key: 'r1', label: 'L', cardinality: 'HAS_ONE', objectType: 'contact', inverseKey: '$x' },
        422,
        'invalid_value',
        'inverseKey',
      ],
      [
        'an unknown member',
        { key: 'r1', label: 'L', cardinality: 'HAS_ONE', objectType: 'contact', required: true },
        400,
        'unknown_field',
        'required',
      ],
    ])('refuses a relationship with %s', async (_case, body, status, code, param) => {
      expectError(await api.addRelationshipRaw('account', body), status, code, param);
    });

    it('reads null in an optional member of a definition as absent', async () => {
      const nulls = { description: null, required: null, unique: null };
      const definitions = await api.addField('account', {
        key: 'nullish',
        label: 'N',
        valueType: 'CURRENCY',
        ...nulls,
        typeConfiguration: { currency: null, handleService: null, multipleValues: null, unique: null, options: null },
      });
      expect(definitions.fieldDefinitions.nullish).toMatchObject({
        description: null,
        required: false,
        typeConfiguration: {},
      });
      const picked = await api.addField('account', {
        key: 'nullishPick',
        label: 'P',
        valueType: 'SINGLE_SELECT',
        typeConfiguration: { options: [{ id: null, label: 'One', description: null }] },
      });
      expect(picked.fieldDefinitions.nullishPick.typeConfiguration).toEqual({
        options: [{ id: expect.stringMatching(/^opt_/), label: 'One', description: null }],
      });
      const related = await api.addRelationship('account', {
        key: 'nullishLink',
        label: 'L',
        cardinality: 'HAS_ONE',
        objectType: 'contact',
        description: null,
        inverseKey: null,
        inverseLabel: null,
      });
      expect(related.relationshipDefinitions.nullishLink).toMatchObject({ description: null, objectType: 'contact' });
      const type = await t.http
        .post(`/admin/v1/workspaces/${ws.workspaceId}/object-types`)
        .set(adminHeaders())
        .send({ slug: 'nullish', label: 'N', fields: null, relationships: null });
      expect({ status: type.status, body: type.body }).toEqual({
        status: 200,
        body: { objectType: 'nullish', fieldDefinitions: {}, relationshipDefinitions: {} },
      });
    });

    it('answers 409 duplicate_slug for a key the type already has, field or relationship', async () => {
      await api.addField('account', { key: 'dupField', label: 'D', valueType: 'TEXT' });
      await api.addRelationship('account', {
        key: 'dupRel',
        label: 'D',
        cardinality: 'HAS_ONE',
        objectType: 'contact',
      });
      expectError(
        await api.addFieldRaw('account', { key: 'dupField', label: 'D', valueType: 'NUMBER' }),
        409,
        'duplicate_slug',
        'key',
      );
      expectError(
        await api.addFieldRaw('account', { key: 'dupRel', label: 'D', valueType: 'TEXT' }),
        409,
        'duplicate_slug',
        'key',
      );
      expectError(
        await api.addRelationshipRaw('account', {
          key: 'dupField',
          label: 'D',
          cardinality: 'HAS_ONE',
          objectType: 'contact',
        }),
        409,
        'duplicate_slug',
        'key',
      );
      expectError(
        await api.addRelationshipRaw('account', {
          key: 'dupRel',
          label: 'D',
          cardinality: 'HAS_MANY',
          objectType: 'note',
        }),
        409,
        'duplicate_slug',
        'key',
      );
      // The default inverse key of dupRel (account_dupRel) is now taken on contact.
      expectError(
        await api.addFieldRaw('contact', { key: 'account_dupRel', label: 'D', valueType: 'TEXT' }),
        409,
        'duplicate_slug',
        'key',
      );
      expectError(
        await api.addRelationshipRaw('opportunity', {
          key: 'other',
          label: 'O',
          cardinality: 'HAS_ONE',
          objectType: 'contact',
          inverseKey: 'account_dupRel',
        }),
        409,
        'duplicate_slug',
        'inverseKey',
      );
      // The same key on another type, or in another workspace, is free.
      expect((await api.addFieldRaw('contact', { key: 'dupField', label: 'D', valueType: 'TEXT' })).status).toBe(200);
      const fresh = await createWorkspace(t.http);
      expect(
        (await api.addFieldRaw('account', { key: 'dupField', label: 'D', valueType: 'TEXT' }, fresh.workspaceId))
          .status,
      ).toBe(200);
    });

    it('refuses a self-relationship whose inverse key is its own key', async () => {
      expectError(
        await api.addRelationshipRaw('account', {
          key: 'peer',
          label: 'Peer',
          cardinality: 'HAS_MANY',
          objectType: 'account',
          inverseKey: 'peer',
        }),
        409,
        'duplicate_slug',
        'inverseKey',
      );
      const definitions = (await api.definitions('account')).body;
      expect(definitions.relationshipDefinitions.peer).toBeUndefined();
    });

    it('adds one of two concurrent definitions of the same key, and 409 for the other', async () => {
      const responses = await concurrently(2, () =>
        api.addFieldRaw('account', { key: 'racedKey', label: 'R', valueType: 'TEXT' }),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
      expectError(
        responses.find((r) => r.status === 409)!,
        409,
        'duplicate_slug',
        'key',
      );
    });

    it('answers 404 for an unknown type, an unknown or malformed workspace', async () => {
      for (const kind of ['fields', 'relationships'] as const) {
        const body =
          kind === 'fields'
            ? { key: 'k2', label: 'L', valueType: 'TEXT' }
            : { key: 'k2', label: 'L', cardinality: 'HAS_ONE', objectType: 'contact' };
        for (const target of [
          path(kind, 'widget'),
          path(kind, 'member'),
          path(kind, 'account', 'wks_01AAAAAAAAAAAAAAAAAAAAAAAA'),
          path(kind, 'account', 'acme'),
        ]) {
          const response = await t.http.post(target).set(adminHeaders()).send(body);
          openapi.assert(response);
          expectError(response, 404, 'not_found');
        }
      }
    });

    it('answers 401 without the operator token', async () => {
      const response = await t.http
        .post(path('fields'))
        .set({ Authorization: `Bearer ${ws.key}` })
        .send({ key: 'k3', label: 'L', valueType: 'TEXT' });
      openapi.assert(response);
      expectError(response, 401, 'invalid_api_key');
    });

    it('adds a relationship to member, and answers the definitions with it', async () => {
      const definitions = await api.addRelationship('account', {
        key: 'reviewer',
        label: 'Reviewer',
        cardinality: 'HAS_ONE',
        objectType: 'member',
        description: 'Who reviews it',
      });
      expect(definitions.relationshipDefinitions.reviewer).toEqual({
        id: expect.stringMatching(/^rel_/),
        label: 'Reviewer',
        description: 'Who reviews it',
        cardinality: 'HAS_ONE',
        objectType: 'member',
        readOnly: false,
        required: false,
      });
    });
  });

  describe('definitions across instances', () => {
    let second: TestApp;
    let secondApi: RecordsApi;

    beforeAll(async () => {
      second = await createTestApp();
      secondApi = api.on(second);
    });
    afterAll(() => second.close());

    it('lets every instance use a new field and relationship at once', async () => {
      const fresh = await createWorkspace(t.http);
      const one = api.as(fresh.key, fresh.workspaceId);
      const two = secondApi.as(fresh.key, fresh.workspaceId);
      // Both instances have read (and cached) the definitions before the change.
      expect((await one.definitions('account')).body.fieldDefinitions.segment).toBeUndefined();
      expect((await two.definitions('account')).body.fieldDefinitions.segment).toBeUndefined();
      await two.account('Warm cache');

      await one.addField('account', { key: 'segment', label: 'Segment', valueType: 'TEXT' });
      const created = await two.account('Segmented', { fields: { segment: 'SMB' } });
      expect(created.fields.segment).toEqual({ value: 'SMB', valueType: 'TEXT' });
      expect((await two.definitions('account')).body.fieldDefinitions.segment).toMatchObject({ valueType: 'TEXT' });
      expect((await two.list('account', { segment: 'SMB' })).body.totalCount).toBe(1);

      // And the other way round, for a relationship and its inverse.
      const contact = await one.contact('Linked');
      await two.addRelationship('account', {
        key: 'advisor',
        label: 'Advisor',
        cardinality: 'HAS_ONE',
        objectType: 'contact',
        inverseKey: 'advises',
      });
      const linked = await one.update('account', created.id, { relationships: { advisor: { add: contact.id } } });
      expect(linked.relationships.advisor).toEqual({
        cardinality: 'has_one',
        objectType: 'contact',
        values: [contact.id],
      });
      expect((await one.retrieve('contact', contact.id)).relationships.advises.values).toEqual([created.id]);
      expect((await two.retrieve('contact', contact.id)).relationships.advises.values).toEqual([created.id]);
    });
  });
});

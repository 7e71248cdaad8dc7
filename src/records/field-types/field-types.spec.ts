import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError } from '../../common/errors/api-error';
import type { FieldDefinition, TypeConfiguration } from '../object-type';
import { VALUE_TYPES } from '../value-types';
import type { ValueType } from '../value-types';
import type { FilterOperator } from './field-type';
import { FIELD_TYPES, fieldTypeOf } from './registry';

const OPTIONS = [
  { id: 'opt_a', label: 'Alpha' },
  { id: 'opt_b', label: 'Beta' },
  { id: 'Beta', label: 'Gamma' }, // an id equal to another option's label: ids win
];
const MULTI: TypeConfiguration = { multipleValues: true };
const SELECT: TypeConfiguration = { options: OPTIONS };

function fieldOf(valueType: ValueType, typeConfiguration: TypeConfiguration = {}, key = 'x'): FieldDefinition {
  return { key, label: key, valueType, description: null, typeConfiguration, readOnly: false, required: false };
}

/** [valueType, typeConfiguration, input, stored]; `schemaStricter` marks inputs the OpenAPI format is stricter on. */
type Good = [ValueType, TypeConfiguration, unknown, unknown, { schemaStricter?: boolean }?];
const GOOD: Good[] = [
  ['TEXT', {}, 'hello', 'hello'],
  ['TEXT', {}, '  kept as written  ', '  kept as written  '],
  ['TEXT', {}, 'x'.repeat(10_000), 'x'.repeat(10_000)],
  ['TEXT', {}, '😀'.repeat(10_000), '😀'.repeat(10_000)], // characters, not UTF-16 units
  ['TEXT', {}, '', ''],
  ['TEXT', MULTI, 'one', ['one']],
  ['TEXT', MULTI, ['a', 'b', 'a'], ['a', 'b', 'a']],
  ['MARKDOWN', {}, '# Title\n\n*body*', '# Title\n\n*body*'],
  ['MARKDOWN', {}, 'm'.repeat(1_000_000), 'm'.repeat(1_000_000)],
  ['SOCIAL_HANDLE', { handleService: 'TWITTER' }, '  @ada  ', '@ada'],
  ['SOCIAL_HANDLE', {}, 'https://www.linkedin.com/in/ada', 'https://www.linkedin.com/in/ada'],
  ['NUMBER', {}, 42, 42],
  ['NUMBER', {}, -1.5, -1.5],
  ['NUMBER', {}, 0, 0],
  ['NUMBER', {}, 1e21, 1e21],
  ['NUMBER', MULTI, [1, 2.5], [1, 2.5]],
  ['CURRENCY', { currency: 'USD' }, 1234.56, 1234.56],
  ['CHECKBOX', {}, true, true],
  ['CHECKBOX', {}, false, false],
  ['CHECKBOX', MULTI, false, [false]],
  ['DATETIME', {}, '2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000Z'],
  ['DATETIME', {}, '2026-01-02T03:04:05.123+02:00', '2026-01-02T01:04:05.123Z'],
  ['DATETIME', {}, '2026-01-02T03:04-05:30', '2026-01-02T08:34:00.000Z', { schemaStricter: true }],
  ['DATETIME', {}, '2026-01-01T00:30:00+0100', '2025-12-31T23:30:00.000Z', { schemaStricter: true }],
  ['DATETIME', {}, '2026-01-02t03:04:05.123456789z', '2026-01-02T03:04:05.123Z'],
  ['DATETIME', {}, '2024-02-29T12:00:00-00:00', '2024-02-29T12:00:00.000Z'],
  ['DATETIME', {}, '0099-05-06T00:00:00Z', '0099-05-06T00:00:00.000Z'],
  ['DATETIME', MULTI, ['2026-01-02T03:04:05Z'], ['2026-01-02T03:04:05.000Z']],
  ['EMAIL', {}, ' Ada@Example.COM ', 'ada@example.com', { schemaStricter: true }],
  ['EMAIL', {}, 'a.b+tag@sub.example.co.uk', 'a.b+tag@sub.example.co.uk'],
  ['EMAIL', MULTI, 'Ada@x.io', ['ada@x.io']],
  ['EMAIL', MULTI, ['a@x.io', 'B@Y.io'], ['a@x.io', 'b@y.io']],
  ['EMAIL', MULTI, [], []],
  ['URL', {}, 'https://example.com', 'https://example.com'],
  ['URL', {}, 'http://example.com/path?q=1#frag', 'http://example.com/path?q=1#frag'],
  ['URL', {}, ' HTTPS://Example.com/A ', 'HTTPS://Example.com/A', { schemaStricter: true }],
  ['URL', MULTI, ['https://a.example', 'http://b.example/x'], ['https://a.example', 'http://b.example/x']],
  ['TELEPHONE', {}, '+1 (415) 555-0100', '+14155550100'],
  ['TELEPHONE', {}, '+44 20 7946 0958', '+442079460958'],
  ['TELEPHONE', {}, '0044 20 7946 0958', '+442079460958'],
  ['TELEPHONE', {}, '+44 (0)20 7946 0958', '+442079460958'],
  ['TELEPHONE', {}, '+33.1.23.45.67.89', '+33123456789'],
  ['TELEPHONE', MULTI, ['+1 415 555 0100', '0033 1 23 45 67 89'], ['+14155550100', '+33123456789']],
  ['SINGLE_SELECT', SELECT, 'opt_a', 'opt_a'],
  ['SINGLE_SELECT', SELECT, 'Alpha', 'opt_a'],
  ['SINGLE_SELECT', SELECT, 'Beta', 'Beta'],
  ['SINGLE_SELECT', SELECT, 'Gamma', 'Beta'],
  ['MULTI_SELECT', SELECT, ['opt_a', 'Alpha', 'Gamma', 'opt_b', 'Beta'], ['opt_a', 'Beta', 'opt_b']],
  ['MULTI_SELECT', SELECT, [], []],
  ['MULTI_SELECT', { ...SELECT, multipleValues: false }, ['Alpha'], ['opt_a']],
  [
    'ADDRESS',
    {},
    {
      street: '1 Main St',
      street2: 'Flat 2',
      city: 'London',
      state: 'Greater London',
      postalCode: 'SW1A 1AA',
      country: 'gb',
      latitude: 51.5,
      longitude: -0.12,
    },
    {
      city: 'London',
      country: 'GB',
      latitude: 51.5,
      longitude: -0.12,
      postalCode: 'SW1A 1AA',
      state: 'Greater London',
      street: '1 Main St',
      street2: 'Flat 2',
    },
  ],
  ['ADDRESS', {}, {}, {}],
  ['ADDRESS', {}, { city: null, street: '1 Main St' }, { street: '1 Main St' }],
  ['ADDRESS', {}, { latitude: -90, longitude: 180 }, { latitude: -90, longitude: 180 }],
  ['FULL_NAME', {}, { lastName: 'Lovelace', firstName: 'Ada' }, { firstName: 'Ada', lastName: 'Lovelace' }],
  ['FULL_NAME', {}, { firstName: 'Ada' }, { firstName: 'Ada' }],
];

/** [valueType, typeConfiguration, input, status, code, param suffix after `fields.x`]. */
type Bad = [ValueType, TypeConfiguration, unknown, number, string, string];
const T400 = [400, 'invalid_type'] as const;
const V422 = [422, 'invalid_value'] as const;
const BAD: Bad[] = [
  ['TEXT', {}, 42, ...T400, ''],
  ['TEXT', {}, true, ...T400, ''],
  ['TEXT', {}, { text: 'a' }, ...T400, ''],
  ['TEXT', {}, ['a'], ...T400, ''],
  ['TEXT', {}, 'x'.repeat(10_001), ...V422, ''],
  ['TEXT', {}, 'a\u0000b', ...V422, ''],
  ['TEXT', {}, 'lone \ud800 surrogate', ...V422, ''],
  ['TEXT', MULTI, ['a', 1], ...T400, '[1]'],
  ['TEXT', MULTI, ['a', 'x'.repeat(10_001)], ...V422, '[1]'],
  ['TEXT', MULTI, Array.from({ length: 101 }, () => 'a'), ...V422, ''],
  ['MARKDOWN', {}, 'm'.repeat(1_000_001), ...V422, ''],
  ['MARKDOWN', {}, 5, ...T400, ''],
  ['SOCIAL_HANDLE', {}, 5, ...T400, ''],
  ['SOCIAL_HANDLE', {}, 'h'.repeat(10_001), ...V422, ''],
  ['NUMBER', {}, '42', ...T400, ''],
  ['NUMBER', {}, true, ...T400, ''],
  ['NUMBER', {}, Number.NaN, ...V422, ''],
  ['NUMBER', {}, Number.POSITIVE_INFINITY, ...V422, ''],
  ['NUMBER', {}, [1], ...T400, ''],
  ['NUMBER', MULTI, [1, '2'], ...T400, '[1]'],
  ['CURRENCY', { currency: 'EUR' }, '12.50', ...T400, ''],
  ['CHECKBOX', {}, 'true', ...T400, ''],
  ['CHECKBOX', {}, 1, ...T400, ''],
  ['DATETIME', {}, '2026-01-02T03:04:05', ...V422, ''],
  ['DATETIME', {}, '2026-01-02', ...V422, ''],
  ['DATETIME', {}, '2025-02-29T00:00:00Z', ...V422, ''],
  ['DATETIME', {}, '2026-04-31T00:00:00Z', ...V422, ''],
  ['DATETIME', {}, '2026-13-01T00:00:00Z', ...V422, ''],
  ['DATETIME', {}, '2026-01-02T24:00:00Z', ...V422, ''],
  ['DATETIME', {}, '2026-01-02T03:60:00Z', ...V422, ''],
  ['DATETIME', {}, '2026-01-02T03:04:60Z', ...V422, ''],
  ['DATETIME', {}, '2026-01-02T03:04:05+24:00', ...V422, ''],
  ['DATETIME', {}, '0000-01-01T00:00:00+01:00', ...V422, ''],
  ['DATETIME', {}, 'yesterday', ...V422, ''],
  ['DATETIME', {}, 1767323045000, ...T400, ''],
  ['DATETIME', MULTI, ['2026-01-02T03:04:05Z', '2026-01-02'], ...V422, '[1]'],
  ['EMAIL', {}, 'ada', ...V422, ''],
  ['EMAIL', {}, 'ada@example', ...V422, ''],
  ['EMAIL', {}, 'ada@@example.com', ...V422, ''],
  ['EMAIL', {}, 'a b@example.com', ...V422, ''],
  ['EMAIL', {}, '@example.com', ...V422, ''],
  ['EMAIL', {}, 'ada@example..com', ...V422, ''],
  ['EMAIL', {}, 'ada@example.com.', ...V422, ''],
  ['EMAIL', {}, `${'a'.repeat(315)}@b.com`, ...V422, ''],
  ['EMAIL', {}, 5, ...T400, ''],
  ['EMAIL', {}, ['ada@example.com'], ...T400, ''],
  ['EMAIL', MULTI, ['a@x.io', 'nope'], ...V422, '[1]'],
  ['EMAIL', MULTI, ['a@x.io', null], ...T400, '[1]'],
  ['EMAIL', MULTI, { email: 'a@x.io' }, ...T400, ''],
  ['EMAIL', MULTI, Array.from({ length: 101 }, (_, i) => `a${i}@x.io`), ...V422, ''],
  ['URL', {}, 'example.com', ...V422, ''],
  ['URL', {}, 'ftp://example.com', ...V422, ''],
  ['URL', {}, 'javascript:alert(1)', ...V422, ''],
  ['URL', {}, 'https://', ...V422, ''],
  ['URL', {}, 'http:example.com', ...V422, ''],
  ['URL', {}, 'https://exa mple.com', ...V422, ''],
  ['URL', {}, `https://example.com/${'a'.repeat(2048)}`, ...V422, ''],
  ['URL', {}, 1, ...T400, ''],
  ['URL', MULTI, ['https://a.example', 'b.example'], ...V422, '[1]'],
  ['TELEPHONE', {}, '415 555 0100', ...V422, ''],
  ['TELEPHONE', {}, '+0123456789', ...V422, ''],
  ['TELEPHONE', {}, '+1234567', ...V422, ''],
  ['TELEPHONE', {}, '+1234567890123456', ...V422, ''],
  ['TELEPHONE', {}, '+1 415 555 0100 ext 3', ...V422, ''],
  ['TELEPHONE', {}, 14155550100, ...T400, ''],
  ['TELEPHONE', MULTI, ['+14155550100', 'call me'], ...V422, '[1]'],
  ['SINGLE_SELECT', SELECT, 'alpha', ...T400, ''],
  ['SINGLE_SELECT', SELECT, 'nope', ...T400, ''],
  ['SINGLE_SELECT', SELECT, 1, ...T400, ''],
  ['SINGLE_SELECT', SELECT, ['opt_a'], ...T400, ''],
  ['SINGLE_SELECT', {}, 'opt_a', ...T400, ''],
  ['MULTI_SELECT', SELECT, 'opt_a', ...T400, ''],
  ['MULTI_SELECT', SELECT, ['opt_a', 'nope'], ...T400, '[1]'],
  ['MULTI_SELECT', SELECT, ['opt_a', 2], ...T400, '[1]'],
  ['MULTI_SELECT', SELECT, Array.from({ length: 101 }, () => 'opt_a'), ...V422, ''],
  ['ADDRESS', {}, 'Main St', ...T400, ''],
  ['ADDRESS', {}, [{ city: 'London' }], ...T400, ''],
  ['ADDRESS', {}, { city: 'London', zip: '1' }, 400, 'unknown_field', '.zip'],
  ['ADDRESS', {}, { country: 'USA' }, ...V422, '.country'],
  ['ADDRESS', {}, { country: 'u1' }, ...V422, '.country'],
  ['ADDRESS', {}, { latitude: 90.01 }, ...V422, '.latitude'],
  ['ADDRESS', {}, { longitude: -180.5 }, ...V422, '.longitude'],
  ['ADDRESS', {}, { latitude: '51.5' }, ...T400, '.latitude'],
  ['ADDRESS', {}, { city: 5 }, ...T400, '.city'],
  ['ADDRESS', {}, { street: 'x'.repeat(10_001) }, ...V422, '.street'],
  ['FULL_NAME', {}, { firstName: 'Ada', middleName: 'King' }, 400, 'unknown_field', '.middleName'],
  ['FULL_NAME', {}, { firstName: 1 }, ...T400, '.firstName'],
  ['FULL_NAME', {}, 'Ada Lovelace', ...T400, ''],
];

const label = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

describe('field-type registry', () => {
  it('defines every value type, each under its own name', () => {
    expect(Object.keys(FIELD_TYPES).sort()).toEqual([...VALUE_TYPES].sort());
    for (const valueType of VALUE_TYPES) expect(fieldTypeOf(valueType).valueType).toBe(valueType);
    expect(() => fieldTypeOf('toString' as ValueType)).toThrow('Unknown value type');
  });

  it('has good and bad write cases for every value type', () => {
    expect(new Set(GOOD.map(([type]) => type))).toEqual(new Set(VALUE_TYPES));
    expect(new Set(BAD.map(([type]) => type))).toEqual(new Set(VALUE_TYPES));
  });

  it.each(GOOD.map((row) => [row[0], label(row[1]), label(row[2]), row] as const))(
    'writes %s %s %s',
    (_type, _config, _input, [valueType, config, input, stored]) => {
      const field = fieldOf(valueType, config);
      const before = JSON.stringify(input);
      const written = fieldTypeOf(valueType).write(input, field, 'fields.x');
      expect(written).toEqual(stored);
      expect(JSON.parse(JSON.stringify(written))).toEqual(written); // plain, normalised JSON
      expect(JSON.stringify(input)).toBe(before); // the input is not mutated
      expect(fieldTypeOf(valueType).read(written, field)).toEqual(stored);
    },
  );

  it.each(BAD.map((row) => [row[0], label(row[1]), label(row[2]), row] as const))(
    'refuses %s %s %s',
    (_type, _config, _input, [valueType, config, input, status, code, suffix]) => {
      let error: unknown;
      try {
        fieldTypeOf(valueType).write(input, fieldOf(valueType, config), 'fields.x');
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ApiError);
      const { status: actualStatus, code: actualCode, param } = error as ApiError;
      expect({ status: actualStatus, code: actualCode, param }).toEqual({ status, code, param: `fields.x${suffix}` });
    },
  );

  describe('read', () => {
    it.each<[string, ValueType, TypeConfiguration, unknown, unknown]>([
      ['a scalar stored before the field became multiple-valued', 'EMAIL', MULTI, 'a@x.io', ['a@x.io']],
      [
        'an array stored before the field became single-valued',
        'URL',
        {},
        ['https://a.example', 'https://b.example'],
        'https://a.example',
      ],
      ['an empty array on a single-valued field', 'TEXT', {}, [], null],
      ['an option id that is no longer an option', 'SINGLE_SELECT', SELECT, 'gone', 'gone'],
      ['a MULTI_SELECT scalar', 'MULTI_SELECT', SELECT, 'opt_a', ['opt_a']],
      ['a non-object ADDRESS', 'ADDRESS', {}, 'London', 'London'],
      ['a string NUMBER', 'NUMBER', {}, '12', '12'],
    ])('tolerates %s', (_name, valueType, config, stored, value) => {
      expect(fieldTypeOf(valueType).read(stored, fieldOf(valueType, config))).toEqual(value);
    });
  });

  describe('OpenAPI fragments', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const schemaOf = (valueType: ValueType, config: TypeConfiguration = {}) =>
      fieldTypeOf(valueType).openApi(fieldOf(valueType, config));

    it.each(GOOD.filter((row) => !row[4]?.schemaStricter).map((row) => [row[0], label(row[2]), row] as const))(
      'the %s schema accepts %s',
      (_type, _input, [valueType, config, input]) => {
        const validate = ajv.compile(schemaOf(valueType, config));
        expect(validate(input) ? 'valid' : validate.errors).toBe('valid');
      },
    );

    it.each<[ValueType, TypeConfiguration, unknown]>([
      ['ADDRESS', {}, { zip: '1' }],
      ['ADDRESS', {}, { latitude: 91 }],
      ['FULL_NAME', {}, { firstName: 1 }],
      ['SINGLE_SELECT', SELECT, 'nope'],
      ['MULTI_SELECT', SELECT, ['nope']],
      ['TEXT', {}, ['a']],
      ['NUMBER', {}, '1'],
      ['CHECKBOX', {}, 'true'],
      ['TEXT', MULTI, Array.from({ length: 101 }, () => 'a')],
    ])('the %s schema refuses %j', (valueType, config, input) => {
      expect(ajv.validate(schemaOf(valueType, config), input)).toBe(false);
    });

    // A NUMBER, CURRENCY or CHECKBOX field with multipleValues is refused by its definition, so is never read.
    const definable = GOOD.filter(
      ([valueType, config]) => !(config.multipleValues && fieldTypeOf(valueType).singleValued),
    );
    it.each(definable.map((row) => [row[0], label(row[1]), label(row[2]), row] as const))(
      'the %s read schema accepts what a %s field reads of %s',
      (_type, _config, _input, [valueType, config, input]) => {
        const field = fieldOf(valueType, config);
        const fieldType = fieldTypeOf(valueType);
        const validate = ajv.compile(fieldType.readValue);
        const value = fieldType.read(fieldType.write(input, field, 'fields.x'), field);
        expect(validate(value) ? 'valid' : validate.errors).toBe('valid');
      },
    );

    it.each<[ValueType, unknown]>([
      ['FULL_NAME', 'Ada'],
      ['FULL_NAME', { nickname: 'Ada' }],
      ['ADDRESS', ['London']],
      ['TEXT', { firstName: 'Ada' }],
      ['TEXT', 1],
      ['NUMBER', 'one'],
      ['CHECKBOX', 'true'],
      ['NUMBER', [1]],
      ['MULTI_SELECT', 'opt_a'],
    ])('the %s read schema refuses %j', (valueType, value) => {
      expect(ajv.validate(fieldTypeOf(valueType).readValue, value)).toBe(false);
    });

    it('documents the shapes', () => {
      expect(schemaOf('ADDRESS')).toMatchObject({ type: 'object', additionalProperties: false });
      expect(Object.keys((schemaOf('ADDRESS') as { properties: object }).properties).sort()).toEqual([
        'city',
        'country',
        'latitude',
        'longitude',
        'postalCode',
        'state',
        'street',
        'street2',
      ]);
      expect(schemaOf('FULL_NAME')).toEqual({
        type: 'object',
        properties: {
          firstName: { type: 'string', nullable: true, maxLength: 10_000 },
          lastName: { type: 'string', nullable: true, maxLength: 10_000 },
        },
        additionalProperties: false,
        example: { firstName: 'Ada', lastName: 'Lovelace' },
      });
      expect(schemaOf('SINGLE_SELECT', SELECT)).toEqual({
        type: 'string',
        enum: ['opt_a', 'Alpha', 'opt_b', 'Beta', 'Gamma'],
      });
      expect(schemaOf('SINGLE_SELECT')).toEqual({ type: 'string' });
      expect(schemaOf('MULTI_SELECT', SELECT)).toMatchObject({
        type: 'array',
        maxItems: 100,
        items: { type: 'string' },
      });
      expect(schemaOf('EMAIL', MULTI)).toEqual({
        oneOf: [
          { type: 'string', format: 'email', maxLength: 320, example: 'ada@example.com' },
          {
            type: 'array',
            items: { type: 'string', format: 'email', maxLength: 320, example: 'ada@example.com' },
            maxItems: 100,
          },
        ],
      });
      expect(schemaOf('CURRENCY', { currency: 'USD' })).toEqual({
        type: 'number',
        example: 1250,
        description: 'Amount in USD',
      });
      expect(schemaOf('DATETIME')).toMatchObject({ type: 'string', format: 'date-time' });
      expect(schemaOf('MARKDOWN')).toMatchObject({ type: 'string', maxLength: 1_000_000 });
    });
  });

  describe('filter operators', () => {
    const RELATIONAL: FilterOperator[] = ['equal', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'];
    it.each<[ValueType, FilterOperator[], FilterOperator | undefined]>([
      ['NUMBER', RELATIONAL, 'equal'],
      ['CURRENCY', RELATIONAL, 'equal'],
      ['DATETIME', RELATIONAL, 'equal'],
      ['TEXT', ['equal', 'startsWith'], 'equal'],
      ['SOCIAL_HANDLE', ['equal', 'startsWith'], 'equal'],
      ['FULL_NAME', ['equal', 'startsWith'], 'equal'],
      ['ADDRESS', ['equal', 'startsWith'], 'equal'],
      ['CHECKBOX', ['equal'], 'equal'],
      ['SINGLE_SELECT', ['equal'], 'equal'],
      ['EMAIL', ['contains'], 'contains'],
      ['TELEPHONE', ['contains'], 'contains'],
      ['URL', ['contains'], 'contains'],
      ['MULTI_SELECT', [], undefined],
      ['MARKDOWN', [], undefined],
    ])('%s allows %j, default %s', (valueType, operators, defaultOperator) => {
      expect([...fieldTypeOf(valueType).operators].sort()).toEqual([...operators].sort());
      expect(fieldTypeOf(valueType).defaultOperator).toBe(defaultOperator);
    });
  });
});

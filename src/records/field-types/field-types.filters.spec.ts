import { Client } from 'pg';
import { ApiError } from '../../common/errors/api-error';
import type { FieldDefinition, TypeConfiguration } from '../object-type';
import type { ValueType } from '../value-types';
import { FILTER_OPERATORS } from './field-type';
import type { FilterOperator, SqlParameters } from './field-type';
import { FIELD_TYPES, fieldTypeOf } from './registry';

/**
 * Every filter operator of every value type, as SQL executed on real PostgreSQL rows written
 * through the registry: matching and non-matching rows, unset and JSON-null values never match,
 * stale values of another JSON type neither match nor raise, and the negation is the exact
 * complement (the conditions are two-valued).
 */
const OPTIONS = [
  { id: 'opt_a', label: 'Alpha' },
  { id: 'opt_b', label: 'Beta' },
  { id: 'Beta', label: 'Gamma' },
];
const MULTI: TypeConfiguration = { multipleValues: true };

const FIELDS: Record<string, [ValueType, TypeConfiguration?]> = {
  title: ['TEXT'],
  tags: ['TEXT', MULTI],
  body: ['MARKDOWN'],
  amount: ['NUMBER'],
  scores: ['NUMBER', MULTI],
  price: ['CURRENCY', { currency: 'USD' }],
  due: ['DATETIME'],
  dates: ['DATETIME', MULTI],
  done: ['CHECKBOX'],
  emails: ['EMAIL', MULTI],
  email: ['EMAIL'],
  site: ['URL'],
  sites: ['URL', MULTI],
  phones: ['TELEPHONE', MULTI],
  phone: ['TELEPHONE'],
  stage: ['SINGLE_SELECT', { options: OPTIONS }],
  industry: ['MULTI_SELECT', { options: OPTIONS }],
  $handle: ['SOCIAL_HANDLE', { handleService: 'TWITTER' }],
  $primaryAddress: ['ADDRESS'],
  $name: ['FULL_NAME'],
};
const field = (key: string): FieldDefinition => {
  const [valueType, typeConfiguration = {}] = FIELDS[key];
  return { key, label: key, valueType, description: null, typeConfiguration, readOnly: false, required: false };
};

/** Records written through the registry (r1..r3), empty (r4), JSON nulls (r5). */
const WRITTEN: Record<string, Record<string, unknown>> = {
  r1: {
    title: 'Hello_world',
    tags: ['alpha', 'beta'],
    body: 'anything',
    amount: 10,
    scores: [1, 5],
    price: 99.5,
    due: '2026-01-02T03:04:05Z',
    dates: ['2020-01-01T00:00:00Z', '2030-01-01T00:00:00Z'],
    done: true,
    emails: ['Ada@Example.com', 'ada@work.io'],
    email: 'ada@example.com',
    site: 'https://Example.com/Path',
    sites: ['https://a.example'],
    phones: ['+1 (415) 555-0100'],
    phone: '+44 20 7946 0958',
    stage: 'Alpha',
    industry: ['opt_a'],
    $handle: '@ada',
    $primaryAddress: { street: '1 Main St', city: 'London', country: 'gb', latitude: 51.5 },
    $name: { firstName: 'Ada', lastName: 'Lovelace' },
  },
  r2: {
    title: 'Hello%world',
    tags: 'gamma',
    amount: -3.25,
    scores: [],
    price: 0,
    due: '2026-06-30T23:59:59.999-01:00',
    done: false,
    emails: 'bob@corp.example',
    email: 'BOB@corp.example',
    site: 'http://corp.example/ada',
    phones: ['0044 20 7946 0958', '+33 1 23 45 67 89'],
    phone: '+14155550100',
    stage: 'opt_b',
    $handle: ' https://twitter.com/bob ',
    $primaryAddress: { street: '22 Baker St', city: 'Londonderry', country: 'IE', postalCode: 'BT48' },
    $name: { firstName: 'Bob', lastName: 'Adams' },
  },
  r3: {
    title: 'hello\\world',
    amount: 1e21,
    scores: [7],
    due: '1999-12-31T23:59:59+00:00',
    stage: 'Beta',
    $primaryAddress: { city: 'Paris', country: 'FR', street2: 'GB' },
    $name: { lastName: 'Hopper' },
  },
  r4: {},
};
/** Rows inserted as raw JSON: r5 every key JSON null; r6 stale values of another type; r7 `10.0`. */
const RAW: Record<string, string> = {
  r5: JSON.stringify(Object.fromEntries(Object.keys(FIELDS).map((key) => [key, null]))),
  r6: JSON.stringify({
    title: 42,
    tags: 'solo',
    amount: 'ten',
    scores: 'x',
    price: '5',
    due: 12345,
    dates: '2031-01-01T00:00:00.000Z',
    done: 'true',
    emails: { a: 'ada@x.io' },
    email: ['ada@example.com'],
    phone: 4155550100,
    stage: ['opt_a'],
    $handle: { at: '@ada' },
    $primaryAddress: 'London',
    $name: ['Ada'],
  }),
  r7: '{"amount": 10.0, "price": 99.50}',
};
const ALL = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'];

/** [field key, operator, raw, matching ids]. */
type Case = [string, FilterOperator, string, string[]];
const CASES: Case[] = [
  ['title', 'equal', 'Hello_world', ['r1']],
  ['title', 'equal', 'Hello', []],
  ['title', 'startsWith', 'Hello', ['r1', 'r2']],
  ['title', 'startsWith', 'Hello_', ['r1']],
  ['title', 'startsWith', 'Hello%', ['r2']],
  ['title', 'startsWith', 'hello\\', ['r3']],
  ['title', 'startsWith', 'hello', ['r3']],
  ['title', 'startsWith', '', ['r1', 'r2', 'r3']],
  ['title', 'startsWith', "'; DROP TABLE r; --", []],
  ['tags', 'equal', 'beta', ['r1']],
  ['tags', 'equal', 'gamma', ['r2']],
  ['tags', 'equal', 'solo', ['r6']],
  ['tags', 'equal', 'alph', []],
  ['tags', 'startsWith', 'a', ['r1']],
  ['tags', 'startsWith', 'so', ['r6']],
  ['amount', 'equal', '10', ['r1', 'r7']],
  ['amount', 'equal', '10.0', ['r1', 'r7']],
  ['amount', 'equal', ' 1e1 ', ['r1', 'r7']],
  ['amount', 'equal', '-3.25', ['r2']],
  ['amount', 'greaterThan', '-3.25', ['r1', 'r3', 'r7']],
  ['amount', 'greaterThanOrEqual', '-3.25', ['r1', 'r2', 'r3', 'r7']],
  ['amount', 'lessThan', '10', ['r2']],
  ['amount', 'lessThanOrEqual', '10', ['r1', 'r2', 'r7']],
  ['amount', 'greaterThan', '1e20', ['r3']],
  ['scores', 'equal', '5', ['r1']],
  ['scores', 'greaterThan', '6', ['r3']],
  ['scores', 'lessThan', '2', ['r1']],
  ['scores', 'greaterThanOrEqual', '7', ['r3']],
  ['scores', 'lessThanOrEqual', '0', []],
  ['price', 'equal', '0', ['r2']],
  ['price', 'equal', '99.5', ['r1', 'r7']],
  ['price', 'greaterThan', '0', ['r1', 'r7']],
  ['price', 'lessThanOrEqual', '99.5', ['r1', 'r2', 'r7']],
  ['price', 'lessThan', '5', ['r2']],
  ['price', 'greaterThanOrEqual', '100', []],
  ['due', 'equal', '2026-01-02T04:04:05+01:00', ['r1']],
  ['due', 'equal', '2026-01-02T03:04:05.000Z', ['r1']],
  ['due', 'equal', '2026-01-02T03:04:05.001Z', []],
  ['due', 'greaterThan', '2026-01-02T03:04:05Z', ['r2']],
  ['due', 'greaterThanOrEqual', '2026-01-02T03:04:05Z', ['r1', 'r2']],
  ['due', 'lessThan', '2026-07-01T00:59:59.999Z', ['r1', 'r3']],
  ['due', 'lessThanOrEqual', '2026-07-01T01:59:59.999+01:00', ['r1', 'r2', 'r3']],
  ['due', 'greaterThan', '2026-01-02T03:04:05 01:00', ['r1', 'r2']], // `+` decoded as a space
  ['due', 'lessThan', '2000-01-01T00:00:00Z', ['r3']],
  ['dates', 'greaterThan', '2029-01-01T00:00:00Z', ['r1', 'r6']],
  ['dates', 'equal', '2020-01-01T01:00:00+01:00', ['r1']],
  ['dates', 'lessThanOrEqual', '2020-01-01T00:00:00Z', ['r1']],
  ['done', 'equal', 'true', ['r1']],
  ['done', 'equal', 'false', ['r2']],
  ['emails', 'contains', 'ADA@', ['r1']],
  ['emails', 'contains', 'example', ['r1', 'r2']],
  ['emails', 'contains', 'work.io', ['r1']],
  ['emails', 'contains', '%', []],
  ['emails', 'contains', '_', []],
  ['email', 'contains', 'CORP', ['r2']],
  ['email', 'contains', 'ada@', ['r1']],
  ['site', 'contains', 'example.com/path', ['r1']],
  ['site', 'contains', 'HTTPS', ['r1']],
  ['site', 'contains', 'example', ['r1', 'r2']],
  ['sites', 'contains', 'a.example', ['r1']],
  ['phones', 'contains', '415', ['r1']],
  ['phones', 'contains', '(415) 555', ['r1']],
  ['phones', 'contains', '0044 20 7946 0958', ['r2']],
  ['phones', 'contains', '20 7946', ['r2']],
  ['phones', 'contains', '+33', ['r2']],
  ['phones', 'contains', '555-0199', []],
  ['phone', 'contains', '4155550100', ['r2']],
  ['phone', 'contains', '+44', ['r1']],
  ['stage', 'equal', 'opt_a', ['r1']],
  ['stage', 'equal', 'Alpha', ['r1']],
  ['stage', 'equal', 'opt_b', ['r2']],
  ['stage', 'equal', 'Beta', ['r3']],
  ['stage', 'equal', 'Gamma', ['r3']],
  ['$handle', 'equal', '@ada', ['r1']],
  ['$handle', 'equal', ' https://twitter.com/bob', ['r2']],
  ['$handle', 'startsWith', 'https://', ['r2']],
  ['$handle', 'startsWith', '@', ['r1']],
  ['$primaryAddress', 'equal', 'London', ['r1']],
  ['$primaryAddress', 'equal', 'GB', ['r1', 'r3']],
  ['$primaryAddress', 'equal', 'gb', ['r1']],
  ['$primaryAddress', 'equal', '51.5', []],
  ['$primaryAddress', 'equal', 'BT48', ['r2']],
  ['$primaryAddress', 'startsWith', 'London', ['r1', 'r2']],
  ['$primaryAddress', 'startsWith', '1 Main', ['r1']],
  ['$primaryAddress', 'startsWith', 'BT', ['r2']],
  ['$primaryAddress', 'startsWith', 'L_ndon', []],
  ['$name', 'equal', 'Ada', ['r1']],
  ['$name', 'equal', 'Hopper', ['r3']],
  ['$name', 'equal', 'Ada Lovelace', []],
  ['$name', 'startsWith', 'Ada', ['r1', 'r2']],
  ['$name', 'startsWith', 'Love', ['r1']],
];

/** [field key, operator, raw]: refused with 400 invalid_filter and the filter's param. */
const REFUSED: [string, FilterOperator, string][] = [
  ['amount', 'equal', 'ten'],
  ['amount', 'greaterThan', ''],
  ['amount', 'lessThan', '0x10'],
  ['amount', 'equal', '1e400'],
  ['amount', 'equal', 'NaN'],
  ['price', 'greaterThanOrEqual', 'Infinity'],
  ['scores', 'lessThanOrEqual', '1,5'],
  ['due', 'equal', '2026-01-02'],
  ['due', 'greaterThan', '2026-01-02T03:04:05'],
  ['due', 'lessThan', '2026-02-30T00:00:00Z'],
  ['due', 'lessThanOrEqual', 'now'],
  ['done', 'equal', 'yes'],
  ['done', 'equal', 'TRUE'],
  ['done', 'equal', '1'],
  ['stage', 'equal', 'nope'],
  ['stage', 'equal', 'alpha'],
  ['phones', 'contains', 'abc'],
  ['phone', 'contains', ''],
  ['title', 'equal', 'nul\u0000byte'],
  ['email', 'contains', 'lone \udc00'],
  // operators the type does not allow
  ['body', 'equal', 'anything'],
  ['industry', 'equal', 'opt_a'],
  ['email', 'equal', 'ada@example.com'],
  ['title', 'greaterThan', 'a'],
  ['title', 'contains', 'a'],
  ['done', 'startsWith', 't'],
  ['$primaryAddress', 'contains', 'London'],
  ['amount', 'startsWith', '1'],
];

const MEMBER_NAMES = ['city', 'country', 'postalCode', 'state', 'street', 'street2', 'firstName', 'lastName'];

class Params implements SqlParameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

function build(key: string, operator: FilterOperator, raw: string): { sql: string; values: unknown[] } {
  const params = new Params();
  const definition = field(key);
  const sql = fieldTypeOf(definition.valueType).filterSql(
    'r.fields',
    definition,
    operator,
    raw,
    params,
    `${key}[${operator}]`,
  );
  return { sql, values: params.values };
}

describe('field-type filters on PostgreSQL', () => {
  const client = new Client({ connectionString: process.env.RESOLVED_TEST_DATABASE_URL });

  beforeAll(async () => {
    await client.connect();
    await client.query('CREATE TEMP TABLE r (id text PRIMARY KEY, fields jsonb NOT NULL)');
    for (const [id, values] of Object.entries(WRITTEN)) {
      const fields = Object.fromEntries(
        Object.entries(values).map(([key, value]) => [
          key,
          fieldTypeOf(FIELDS[key][0]).write(value, field(key), `fields.${key}`),
        ]),
      );
      await client.query('INSERT INTO r (id, fields) VALUES ($1, $2)', [id, JSON.stringify(fields)]);
    }
    for (const [id, json] of Object.entries(RAW))
      await client.query('INSERT INTO r (id, fields) VALUES ($1, $2)', [id, json]);
  });
  afterAll(() => client.end());

  async function ids(where: string, values: unknown[]): Promise<string[]> {
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM r WHERE ${where} ORDER BY id`, values);
    return rows.map((row) => row.id);
  }

  it('covers every operator of every filterable value type', () => {
    const covered = new Set(CASES.map(([key, operator]) => `${FIELDS[key][0]}.${operator}`));
    const expected = Object.values(FIELD_TYPES).flatMap((type) =>
      type.operators.map((operator) => `${type.valueType}.${operator}`),
    );
    expect([...covered].sort()).toEqual(expected.sort());
  });

  it.each(CASES)('%s[%s]=%j matches %j', async (key, operator, raw, expected) => {
    const { sql, values } = build(key, operator, raw);
    // The raw value is only ever bound: the only literals are the key, member names and type names.
    if (raw.length >= 4) expect(sql).not.toContain(raw);
    const literals = new Set(sql.match(/'[^']*'/g));
    for (const allowed of [key, ...MEMBER_NAMES, 'string', 'number', 'array', '{}']) literals.delete(`'${allowed}'`);
    expect([...literals]).toEqual([]);
    expect(await ids(sql, values)).toEqual(expected);
    const complement = ALL.filter((id) => !expected.includes(id));
    expect(await ids(`NOT (${sql})`, values)).toEqual(complement); // never NULL: unset rows negate too
    expect(await ids(`(${sql}) IS NOT TRUE`, values)).toEqual(complement);
  });

  it.each(REFUSED)('refuses %s[%s]=%j with 400 invalid_filter', (key, operator, raw) => {
    let error: unknown;
    try {
      build(key, operator, raw);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect({ ...(error as ApiError) }).toMatchObject({
      status: 400,
      code: 'invalid_filter',
      param: `${key}[${operator}]`,
    });
  });

  it('never interpolates the field key unless it is a plain key', () => {
    for (const type of Object.values(FIELD_TYPES)) {
      for (const operator of FILTER_OPERATORS) {
        for (const key of ["x') OR true --", 'x y', '$', '1x', 'x-y', "x'"]) {
          const definition = { ...field('title'), key, valueType: type.valueType };
          const attempt = () => type.filterSql('r.fields', definition, operator, '1', new Params(), 'p');
          // either refused as a filter (operator not allowed) or refused as an unsafe key
          expect(attempt).toThrow();
          try {
            attempt();
          } catch (error) {
            if (type.operators.includes(operator)) expect(error).not.toBeInstanceOf(ApiError);
          }
        }
      }
    }
  });

  it('uses the indexes the architecture names (GIN jsonb_path_ops for equality, text_pattern_ops for prefixes)', async () => {
    await client.query('CREATE INDEX r_fields_gin ON r USING gin (fields jsonb_path_ops)');
    await client.query(`CREATE INDEX r_title_prefix ON r ((fields ->> 'title') text_pattern_ops)`);
    await client.query('SET enable_seqscan = off');
    try {
      const plan = async (key: string, operator: FilterOperator, raw: string) => {
        const { sql, values } = build(key, operator, raw);
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) SELECT id FROM r WHERE ${sql}`, values);
        return JSON.stringify(rows[0]);
      };
      expect(await plan('title', 'equal', 'Hello_world')).toContain('r_fields_gin');
      expect(await plan('tags', 'equal', 'beta')).toContain('r_fields_gin');
      expect(await plan('stage', 'equal', 'Alpha')).toContain('r_fields_gin');
      expect(await plan('$primaryAddress', 'equal', 'London')).toContain('r_fields_gin');
      expect(await plan('title', 'startsWith', 'Hello_')).toContain('r_title_prefix');
    } finally {
      await client.query('RESET enable_seqscan');
    }
  });
});

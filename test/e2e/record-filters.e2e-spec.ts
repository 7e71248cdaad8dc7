import { expectError } from '../support/errors';
import { createMember, createWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { idsOf, RecordsApi } from '../support/records';
import { createTestApp, TestApp } from '../support/test-app';

type Letter = 'A' | 'B' | 'C' | 'D';
type Pairs = [string, string][];

/**
 * Filters of docs/api.md §8 on GET /v1/accounts, on a custom field of every value type plus system
 * fields and relationships. Four accounts A, B, C, D (created in that order, so listed D, C, B, A);
 * D sets nothing but `$name`, so negations must match it.
 */
describe('record filters (GET /v1/accounts?key[op]=value)', () => {
  let t: TestApp;
  let api: RecordsApi;
  const ids = {} as Record<Letter, string>;
  /** Ids by name of the other records the filters refer to. */
  const refs: Record<string, string> = {};

  const fields: [string, string, Record<string, unknown>?][] = [
    ['txt', 'TEXT'],
    ['md', 'MARKDOWN'],
    ['num', 'NUMBER'],
    ['tags', 'TEXT', { multipleValues: true }],
    ['cur', 'CURRENCY', { currency: 'EUR' }],
    ['chk', 'CHECKBOX'],
    ['dt', 'DATETIME'],
    ['email', 'EMAIL'],
    ['emails', 'EMAIL', { multipleValues: true }],
    ['url', 'URL'],
    ['tel', 'TELEPHONE'],
    [
      'sel',
      'SINGLE_SELECT',
      {
        options: [
          { id: 'opt_a', label: 'Alpha' },
          { id: 'opt_b', label: 'Beta' },
        ],
      },
    ],
    [
      'multi',
      'MULTI_SELECT',
      {
        options: [
          { id: 'opt_red', label: 'Red' },
          { id: 'opt_blue', label: 'Blue' },
        ],
      },
    ],
    ['handle', 'SOCIAL_HANDLE', { handleService: 'INSTAGRAM' }],
    ['addr', 'ADDRESS'],
    ['person', 'FULL_NAME'],
  ];

  beforeAll(async () => {
    t = await createTestApp();
    const ws = await createWorkspace(t.http);
    api = new RecordsApi(t, new OpenApiValidator(t.document), ws.key, ws.workspaceId);
    for (const [key, valueType, typeConfiguration] of fields) {
      await api.addField('account', { key, label: key, valueType, ...(typeConfiguration && { typeConfiguration }) });
    }
    await api.addRelationship('account', {
      key: 'partners',
      label: 'Partners',
      cardinality: 'HAS_MANY',
      objectType: 'contact',
      inverseKey: 'partnerOf',
    });
    refs.m1 = ws.memberId;
    refs.m2 = (await createMember(t.http, ws.workspaceId)).id;
    refs.c1 = (await api.contact('Cee one')).id;
    refs.c2 = (await api.contact('Cee two')).id;
    refs.k1 = (await api.contact('Kay')).id;

    ids.A = (
      await api.account('Alpha Inc', {
        fields: {
          txt: 'apple pie',
          md: '# A',
          num: 10,
          tags: ['red', 'blue'],
          cur: 100.5,
          chk: true,
          dt: '2026-01-01T00:00:00Z',
          email: 'ann@alpha.io',
          emails: ['x@one.io', 'y@two.io'],
          url: 'https://alpha.io/home',
          tel: '+1 415 555 0100',
          sel: 'Alpha',
          multi: ['Red'],
          handle: '@alpha',
          addr: { street: '1 Rue', city: 'Paris', country: 'fr' },
          person: { firstName: 'Ann', lastName: 'Archer' },
        },
        relationships: { $owner: refs.m1, partners: [refs.c1], $contact: [refs.k1] },
      })
    ).id;
    ids.B = (
      await api.account('Beta LLC', {
        fields: {
          txt: 'apricot',
          num: 20,
          tags: 'green',
          cur: 200,
          chk: false,
          dt: '2026-06-01T12:00:00+02:00',
          email: 'bob@beta.io',
          emails: 'z@three.io',
          url: 'http://beta.io',
          tel: '+44 20 7946 0958',
          sel: 'Beta',
          multi: ['Blue', 'Red'],
          handle: '@beta',
          addr: { city: 'London', country: 'GB', postalCode: 'SW1A' },
          person: { firstName: 'Bob', lastName: 'Baker' },
          $headcount: '11-50',
        },
        relationships: { $owner: refs.m2 },
      })
    ).id;
    ids.C = (
      await api.account('Gamma', {
        fields: {
          txt: 'banana',
          num: -5.5,
          cur: 0,
          chk: true,
          dt: '2027-01-01T00:00:00Z',
          email: 'carl@ALPHA.io',
          url: 'https://gamma.com',
          tel: '+14155550199',
          sel: 'opt_a',
          handle: 'https://x.com/gamma',
          addr: { city: 'Paris', state: 'Texas', country: 'US' },
          person: { firstName: 'Carl' },
          $website: 'https://gamma.example',
        },
        relationships: { partners: [refs.c1, refs.c2] },
      })
    ).id;
    ids.D = (await api.account('Delta')).id;
    refs.n1 = (await api.create('note', { fields: { $title: 'On B' }, relationships: { $account: ids.B } })).id;
  });
  afterAll(() => t.close());

  /** Lists with the filters: the letters matched, newest first, and the count. */
  async function matched(
    pairs: Pairs,
  ): Promise<{ pairs: Pairs; status: number; matched: string[]; totalCount: number }> {
    const resolved = pairs.map(
      ([key, value]) => [key, value.replace(/^ref:(\w+)$/, (_, name: string) => refs[name])] as [string, string],
    );
    const response = await api.list('account', resolved);
    const byId = Object.fromEntries(Object.entries(ids).map(([letter, id]) => [id, letter]));
    return {
      pairs,
      status: response.status,
      matched: idsOf(response).map((id) => byId[id] ?? id),
      totalCount: response.body.totalCount,
    };
  }

  /** Lists with the filters and expects exactly `letters`, newest first, and their count. */
  async function expectMatches(pairs: Pairs, letters: Letter[]): Promise<void> {
    const newestFirst = (['D', 'C', 'B', 'A'] as Letter[]).filter((letter) => letters.includes(letter));
    expect(await matched(pairs)).toEqual({ pairs, status: 200, matched: newestFirst, totalCount: letters.length });
  }

  const MATCHES: [string, Pairs, Letter[]][] = [
    // TEXT: equal (default), startsWith; LIKE wildcards are literal.
    ['TEXT default equal', [['txt', 'apple pie']], ['A']],
    ['TEXT equal is whole-value', [['txt[equal]', 'apple']], []],
    ['TEXT startsWith', [['txt[startsWith]', 'ap']], ['A', 'B']],
    ['TEXT negated startsWith matches unset', [['txt[-startsWith]', 'ap']], ['C', 'D']],
    ['TEXT negated equal matches unset', [['txt[-equal]', 'banana']], ['A', 'B', 'D']],
    ['TEXT startsWith with _ taken literally', [['txt[startsWith]', 'b_nana']], []],
    ['TEXT startsWith with % taken literally', [['txt[startsWith]', '%']], []],
    // The index reads a prefix as a range [prefix, prefix with its last character raised).
    ['TEXT startsWith the whole value', [['txt[startsWith]', 'apricot']], ['B']],
    ['TEXT startsWith past the value', [['txt[startsWith]', 'apricots']], []],
    ['TEXT startsWith one letter', [['txt[startsWith]', 'b']], ['C']],
    ['TEXT startsWith empty', [['txt[startsWith]', '']], ['A', 'B', 'C']],
    ['TEXT startsWith ending in the last code point', [['txt[startsWith]', 'a\u{10FFFF}']], []],
    ['system TEXT $name startsWith', [['$name[startsWith]', 'Al']], ['A']],
    ['system TEXT $name equal', [['$name', 'Gamma']], ['C']],
    // NUMBER
    ['NUMBER default equal', [['num', '10']], ['A']],
    ['NUMBER equal 10.0', [['num[equal]', '10.0']], ['A']],
    ['NUMBER equal 1e1', [['num', '1e1']], ['A']],
    ['NUMBER greaterThan', [['num[greaterThan]', '10']], ['B']],
    ['NUMBER greaterThanOrEqual', [['num[greaterThanOrEqual]', '10']], ['A', 'B']],
    ['NUMBER lessThan', [['num[lessThan]', '0']], ['C']],
    ['NUMBER lessThanOrEqual a negative decimal', [['num[lessThanOrEqual]', '-5.5']], ['C']],
    ['NUMBER negated greaterThan matches unset', [['num[-greaterThan]', '10']], ['A', 'C', 'D']],
    [
      'NUMBER range as two filters',
      [
        ['num[greaterThan]', '0'],
        ['num[lessThan]', '15'],
      ],
      ['A'],
    ],
    ['TEXT multiple: any element equal', [['tags', 'blue']], ['A']],
    ['TEXT multiple: a single value written', [['tags[equal]', 'green']], ['B']],
    ['TEXT multiple: any element startsWith', [['tags[startsWith]', 'b']], ['A']],
    ['TEXT multiple: startsWith on several', [['tags[startsWith]', 'r']], ['A']],
    ['TEXT multiple: negated', [['tags[-startsWith]', 'r']], ['B', 'C', 'D']],
    // CURRENCY
    ['CURRENCY greaterThan', [['cur[greaterThan]', '100']], ['A', 'B']],
    ['CURRENCY equal zero', [['cur', '0']], ['C']],
    ['CURRENCY lessThan', [['cur[lessThan]', '100.5']], ['C']],
    ['CURRENCY lessThanOrEqual', [['cur[lessThanOrEqual]', '100.5']], ['A', 'C']],
    ['CURRENCY greaterThanOrEqual', [['cur[greaterThanOrEqual]', '200']], ['B']],
    ['CURRENCY negated equal', [['cur[-equal]', '0']], ['A', 'B', 'D']],
    // CHECKBOX
    ['CHECKBOX default equal true', [['chk', 'true']], ['A', 'C']],
    ['CHECKBOX equal false', [['chk[equal]', 'false']], ['B']],
    ['CHECKBOX negated matches unset', [['chk[-equal]', 'true']], ['B', 'D']],
    // DATETIME
    ['DATETIME default equal', [['dt', '2026-01-01T00:00:00Z']], ['A']],
    ['DATETIME equal at another offset', [['dt', '2026-01-01T01:00:00+01:00']], ['A']],
    ['DATETIME equal as written with an offset', [['dt[equal]', '2026-06-01T12:00:00+02:00']], ['B']],
    ['DATETIME greaterThan', [['dt[greaterThan]', '2026-01-01T00:00:00Z']], ['B', 'C']],
    ['DATETIME greaterThanOrEqual', [['dt[greaterThanOrEqual]', '2026-01-01T00:00:00.000Z']], ['A', 'B', 'C']],
    ['DATETIME lessThan', [['dt[lessThan]', '2026-06-01T10:00:00Z']], ['A']],
    ['DATETIME lessThanOrEqual', [['dt[lessThanOrEqual]', '2026-06-01T10:00:00Z']], ['A', 'B']],
    ['DATETIME negated lessThan matches unset', [['dt[-lessThan]', '2026-06-01T00:00:00Z']], ['B', 'C', 'D']],
    // EMAIL: contains, case-insensitive
    ['EMAIL contains', [['email[contains]', 'alpha']], ['A', 'C']],
    ['EMAIL default contains, any case', [['email', 'ALPHA.IO']], ['A', 'C']],
    ['EMAIL contains a local part', [['email[contains]', 'bob@']], ['B']],
    ['EMAIL negated matches unset', [['email[-contains]', 'alpha']], ['B', 'D']],
    ['EMAIL multiple: any element', [['emails[contains]', 'two.io']], ['A']],
    ['EMAIL multiple: a single value written', [['emails', 'three']], ['B']],
    ['EMAIL multiple: negated', [['emails[-contains]', 'one.io']], ['B', 'C', 'D']],
    // URL
    ['URL contains, any case', [['url[contains]', 'ALPHA']], ['A']],
    ['URL default contains', [['url', '.io']], ['A', 'B']],
    ['URL negated', [['url[-contains]', 'https']], ['B', 'D']],
    ['system URL $website', [['$website[contains]', 'gamma']], ['C']],
    // TELEPHONE: contains, by digits
    ['TELEPHONE contains digits', [['tel[contains]', '4155550']], ['A', 'C']],
    ['TELEPHONE default contains, a formatted number', [['tel', '+1 415 555 0100']], ['A']],
    ['TELEPHONE contains, punctuation ignored', [['tel[contains]', '(415) 555-01']], ['A', 'C']],
    ['TELEPHONE contains a 00-prefixed number', [['tel[contains]', '0044 20 7946 0958']], ['B']],
    ['TELEPHONE negated', [['tel[-contains]', '415']], ['B', 'D']],
    // SINGLE_SELECT: option id or label
    ['SINGLE_SELECT default equal by label', [['sel', 'Alpha']], ['A', 'C']],
    ['SINGLE_SELECT equal by id', [['sel', 'opt_b']], ['B']],
    ['SINGLE_SELECT equal by label', [['sel[equal]', 'Beta']], ['B']],
    ['SINGLE_SELECT negated', [['sel[-equal]', 'Alpha']], ['B', 'D']],
    ['system SINGLE_SELECT $headcount', [['$headcount', '11-50']], ['B']],
    // SOCIAL_HANDLE
    ['SOCIAL_HANDLE default equal', [['handle', '@alpha']], ['A']],
    ['SOCIAL_HANDLE equal, value trimmed', [['handle', ' @alpha ']], ['A']],
    ['SOCIAL_HANDLE startsWith', [['handle[startsWith]', '@']], ['A', 'B']],
    ['SOCIAL_HANDLE startsWith a URL', [['handle[startsWith]', 'https']], ['C']],
    ['SOCIAL_HANDLE negated', [['handle[-startsWith]', '@']], ['C', 'D']],
    // ADDRESS: any member
    ['ADDRESS default equal on city', [['addr', 'Paris']], ['A', 'C']],
    ['ADDRESS equal on country, any case', [['addr', 'fr']], ['A']],
    ['ADDRESS equal on country', [['addr[equal]', 'US']], ['C']],
    ['ADDRESS startsWith city', [['addr[startsWith]', 'Lon']], ['B']],
    ['ADDRESS startsWith state', [['addr[startsWith]', 'Tex']], ['C']],
    ['ADDRESS startsWith street', [['addr[startsWith]', '1 R']], ['A']],
    ['ADDRESS startsWith postal code', [['addr[startsWith]', 'SW1']], ['B']],
    ['ADDRESS negated', [['addr[-equal]', 'Paris']], ['B', 'D']],
    // FULL_NAME: any member
    ['FULL_NAME equal first name', [['person', 'Bob']], ['B']],
    ['FULL_NAME equal last name', [['person', 'Archer']], ['A']],
    ['FULL_NAME startsWith', [['person[startsWith]', 'A']], ['A']],
    ['FULL_NAME startsWith last name', [['person[startsWith]', 'Ba']], ['B']],
    ['FULL_NAME negated', [['person[-startsWith]', 'C']], ['A', 'B', 'D']],
    // Relationships: equal only (the record links to that id)
    ['$owner default equal', [['$owner', 'ref:m1']], ['A']],
    ['$owner equal', [['$owner[equal]', 'ref:m2']], ['B']],
    ['$owner negated matches unlinked', [['$owner[-equal]', 'ref:m1']], ['B', 'C', 'D']],
    ['$contact (the writable inverse)', [['$contact', 'ref:k1']], ['A']],
    ['$note (a read-only inverse)', [['$note', 'ref:n1']], ['B']],
    ['custom HAS_MANY relationship', [['partners', 'ref:c1']], ['A', 'C']],
    ['custom relationship, second id', [['partners', 'ref:c2']], ['C']],
    ['custom relationship negated', [['partners[-equal]', 'ref:c1']], ['B', 'D']],
    ['relationship to an id nothing links to', [['partners', 'ref:k1']], []],
    // AND
    [
      'AND of TEXT and NUMBER',
      [
        ['txt[startsWith]', 'ap'],
        ['num[greaterThan]', '10'],
      ],
      ['B'],
    ],
    [
      'AND of three filters',
      [
        ['sel', 'Alpha'],
        ['chk', 'true'],
        ['addr', 'Paris'],
      ],
      ['A', 'C'],
    ],
    [
      'AND of select and number',
      [
        ['sel', 'Alpha'],
        ['num[lessThan]', '0'],
      ],
      ['C'],
    ],
    [
      'AND of a relationship and a relationship',
      [
        ['partners', 'ref:c1'],
        ['$owner', 'ref:m1'],
      ],
      ['A'],
    ],
    [
      'AND of two negations',
      [
        ['txt[-equal]', 'apple pie'],
        ['chk[-equal]', 'false'],
      ],
      ['C', 'D'],
    ],
    [
      'AND with no match',
      [
        ['sel', 'Beta'],
        ['chk', 'true'],
      ],
      [],
    ],
  ];

  it.each(MATCHES)('%s', async (_name, pairs, letters) => {
    await expectMatches(pairs, letters);
  });

  /**
   * Every operator of every filterable value type (docs/api.md §8), and every kind of relationship,
   * with a value some record matches. D leaves every custom field unset and links nothing.
   */
  const OPERATOR_PROBES: [string, string, string][] = [
    ['txt', 'equal', 'apple pie'],
    ['txt', 'startsWith', 'ap'],
    ['tags', 'equal', 'blue'],
    ['tags', 'startsWith', 'b'],
    ['$name', 'equal', 'Gamma'],
    ['$name', 'startsWith', 'Al'],
    ...['equal', 'greaterThan', 'greaterThanOrEqual', 'lessThan', 'lessThanOrEqual'].flatMap(
      (operator): [string, string, string][] => [
        ['num', operator, '10'],
        ['cur', operator, '100.5'],
        ['dt', operator, '2026-06-01T10:00:00Z'],
      ],
    ),
    ['chk', 'equal', 'false'],
    ['email', 'contains', 'alpha'],
    ['emails', 'contains', 'one.io'],
    ['url', 'contains', 'beta'],
    ['$website', 'contains', 'gamma'],
    ['tel', 'contains', '415'],
    ['sel', 'equal', 'Beta'],
    ['$headcount', 'equal', '11-50'],
    ['handle', 'equal', '@beta'],
    ['handle', 'startsWith', '@'],
    ['addr', 'equal', 'Paris'],
    ['addr', 'startsWith', 'Lon'],
    ['person', 'equal', 'Carl'],
    ['person', 'startsWith', 'A'],
    ['$owner', 'equal', 'ref:m1'],
    ['partners', 'equal', 'ref:c1'],
    ['$contact', 'equal', 'ref:k1'],
    ['$note', 'equal', 'ref:n1'],
  ];

  it.each(OPERATOR_PROBES)(
    '%s[%s]=%s: the negation is the exact complement, unset values and no links included',
    async (key, operator, raw) => {
      const positive = await matched([[`${key}[${operator}]`, raw]]);
      const negated = await matched([[`${key}[-${operator}]`, raw]]);
      expect([positive.status, negated.status]).toEqual([200, 200]);
      expect(positive.matched.length).toBeGreaterThan(0);
      expect(negated.matched).toContain('D');
      expect([...positive.matched, ...negated.matched].sort()).toEqual(['A', 'B', 'C', 'D']);
      expect(positive.totalCount + negated.totalCount).toBe(4);
    },
  );

  it('lists everything without filters', async () => {
    await expectMatches([], ['A', 'B', 'C', 'D']);
  });

  it('takes the + of an unencoded offset, which arrives as a space', async () => {
    const response = await api.get('/v1/accounts?dt=2026-01-01T01:00:00+01:00');
    expect(idsOf(response)).toEqual([ids.A]);
  });

  const REFUSALS: [string, Pairs, string, string][] = [
    ['an unknown key', [['nope', '1']], 'unknown_field', 'nope'],
    ['an unknown key with an operator', [['nope[equal]', '1']], 'unknown_field', 'nope[equal]'],
    ['an unknown system key', [['$nope', '1']], 'unknown_field', '$nope'],
    ["the other type's inverse key", [['partnerOf', 'x']], 'unknown_field', 'partnerOf'],
    ['an unknown operator', [['txt[like]', 'a']], 'invalid_filter', 'txt[like]'],
    ['MULTI_SELECT (not filterable)', [['multi', 'Red']], 'invalid_filter', 'multi'],
    ['MULTI_SELECT equal', [['multi[equal]', 'Red']], 'invalid_filter', 'multi[equal]'],
    ['MULTI_SELECT contains', [['multi[contains]', 'Red']], 'invalid_filter', 'multi[contains]'],
    ['system MULTI_SELECT $industry', [['$industry', 'Software']], 'invalid_filter', '$industry'],
    ['MARKDOWN (not filterable)', [['md', 'x']], 'invalid_filter', 'md'],
    ['MARKDOWN startsWith', [['md[startsWith]', '#']], 'invalid_filter', 'md[startsWith]'],
    ['MARKDOWN contains', [['md[contains]', 'A']], 'invalid_filter', 'md[contains]'],
    ['startsWith on NUMBER', [['num[startsWith]', '1']], 'invalid_filter', 'num[startsWith]'],
    ['contains on NUMBER', [['num[contains]', '1']], 'invalid_filter', 'num[contains]'],
    ['contains on CURRENCY', [['cur[contains]', '1']], 'invalid_filter', 'cur[contains]'],
    ['contains on TEXT', [['txt[contains]', 'a']], 'invalid_filter', 'txt[contains]'],
    ['greaterThan on TEXT', [['txt[greaterThan]', 'a']], 'invalid_filter', 'txt[greaterThan]'],
    ['startsWith on CHECKBOX', [['chk[startsWith]', 't']], 'invalid_filter', 'chk[startsWith]'],
    ['greaterThan on CHECKBOX', [['chk[greaterThan]', 'false']], 'invalid_filter', 'chk[greaterThan]'],
    ['startsWith on DATETIME', [['dt[startsWith]', '2026']], 'invalid_filter', 'dt[startsWith]'],
    ['equal on EMAIL', [['email[equal]', 'ann@alpha.io']], 'invalid_filter', 'email[equal]'],
    ['startsWith on EMAIL', [['email[startsWith]', 'ann']], 'invalid_filter', 'email[startsWith]'],
    ['equal on URL', [['url[equal]', 'http://beta.io']], 'invalid_filter', 'url[equal]'],
    ['equal on TELEPHONE', [['tel[equal]', '+14155550100']], 'invalid_filter', 'tel[equal]'],
    ['startsWith on SINGLE_SELECT', [['sel[startsWith]', 'A']], 'invalid_filter', 'sel[startsWith]'],
    ['contains on SOCIAL_HANDLE', [['handle[contains]', 'a']], 'invalid_filter', 'handle[contains]'],
    ['contains on ADDRESS', [['addr[contains]', 'Paris']], 'invalid_filter', 'addr[contains]'],
    ['greaterThan on ADDRESS', [['addr[greaterThan]', 'a']], 'invalid_filter', 'addr[greaterThan]'],
    ['contains on FULL_NAME', [['person[contains]', 'A']], 'invalid_filter', 'person[contains]'],
    ['startsWith on a relationship', [['partners[startsWith]', 'con_']], 'invalid_filter', 'partners[startsWith]'],
    ['contains on a relationship', [['$owner[contains]', 'mem_']], 'invalid_filter', '$owner[contains]'],
    ['a NUMBER that is not a number', [['num', 'abc']], 'invalid_filter', 'num'],
    ['an empty NUMBER', [['num[greaterThan]', '']], 'invalid_filter', 'num[greaterThan]'],
    ['a hexadecimal NUMBER', [['num', '0x10']], 'invalid_filter', 'num'],
    ['a NUMBER beyond double range', [['num[lessThan]', '1e400']], 'invalid_filter', 'num[lessThan]'],
    ['greaterThan on a multiple TEXT', [['tags[greaterThan]', 'a']], 'invalid_filter', 'tags[greaterThan]'],
    ['a CURRENCY that is a word', [['cur[lessThan]', 'ten']], 'invalid_filter', 'cur[lessThan]'],
    ['a CHECKBOX that is not true or false', [['chk', 'yes']], 'invalid_filter', 'chk'],
    ['a DATETIME that is a date', [['dt', '2026-01-01']], 'invalid_filter', 'dt'],
    ['a DATETIME without offset', [['dt[greaterThan]', '2026-01-01T00:00:00']], 'invalid_filter', 'dt[greaterThan]'],
    ['a DATETIME that is a word', [['dt[lessThan]', 'yesterday']], 'invalid_filter', 'dt[lessThan]'],
    ['a SINGLE_SELECT option not in the set', [['sel', 'Gamma']], 'invalid_filter', 'sel'],
    ['a TELEPHONE without digits', [['tel[contains]', 'abc']], 'invalid_filter', 'tel[contains]'],
    [
      'a filter given twice',
      [
        ['txt', 'a'],
        ['txt', 'b'],
      ],
      'invalid_filter',
      'txt',
    ],
    [
      'a filter with an operator given twice',
      [
        ['num[greaterThan]', '1'],
        ['num[greaterThan]', '2'],
      ],
      'invalid_filter',
      'num[greaterThan]',
    ],
    [
      'a relationship filter given twice',
      [
        ['$owner', 'x'],
        ['$owner', 'y'],
      ],
      'invalid_filter',
      '$owner',
    ],
  ];

  it.each(REFUSALS)('refuses %s with 400', async (_name, pairs, code, param) => {
    expectError(await api.list('account', pairs), 400, code, param);
  });

  it('refuses a bad filter even next to good ones', async () => {
    expectError(
      await api.list('account', [
        ['txt', 'apple pie'],
        ['multi', 'Red'],
      ]),
      400,
      'invalid_filter',
      'multi',
    );
    expectError(
      await api.list('account', [
        ['sel', 'Alpha'],
        ['nope', '1'],
      ]),
      400,
      'unknown_field',
      'nope',
    );
  });

  it('filters contacts and opportunities by their system fields and relationships', async () => {
    const account = await api.account('Filter home');
    const ada = await api.contact('Ada', {
      fields: { $email: ['ada@filters.example'], $phone: '+1 202 555 0147' },
      relationships: { $account: account.id },
    });
    const bob = await api.contact('Bob', { fields: { $email: 'bob@elsewhere.example' } });
    const contacts = async (pairs: Pairs) => idsOf(await api.list('contact', pairs));
    expect(await contacts([['$email', 'filters.example']])).toEqual([ada.id]);
    expect(await contacts([['$phone[contains]', '2025550147']])).toEqual([ada.id]);
    expect(await contacts([['$name', 'Bob']])).toEqual([bob.id]);
    expect(await contacts([['$account', account.id]])).toEqual([ada.id]);
    expect(
      await contacts([
        ['$account[-equal]', account.id],
        ['$email[contains]', 'example'],
      ]),
    ).toEqual([bob.id]);

    const won = await api.opportunity(account.id, 'Won', {
      fields: { $stage: 'WON', $amount: 5000, $closeDate: '2026-03-01T00:00:00Z' },
    });
    const lost = await api.opportunity(account.id, 'Lost', { fields: { $stage: 'LOST', $amount: 10 } });
    const opportunities = async (pairs: Pairs) =>
      idsOf(await api.list('opportunity', [...pairs, ['$account', account.id]]));
    expect(await opportunities([['$stage', 'WON']])).toEqual([won.id]);
    expect(await opportunities([['$amount[greaterThan]', '100']])).toEqual([won.id]);
    expect(await opportunities([['$closeDate[lessThan]', '2027-01-01T00:00:00Z']])).toEqual([won.id]);
    expect(await opportunities([['$closeDate[-lessThan]', '2027-01-01T00:00:00Z']])).toEqual([lost.id]);
    expect(await opportunities([])).toEqual([lost.id, won.id]);
    expectError(await api.list('opportunity', [['$stage', 'DONE']]), 400, 'invalid_filter', '$stage');
  });

  describe('totalCount and paging under filters', () => {
    let paging: RecordsApi;
    const created: string[] = [];

    beforeAll(async () => {
      const ws = await createWorkspace(t.http);
      paging = api.as(ws.key, ws.workspaceId);
      await paging.addField('account', { key: 'grp', label: 'Group', valueType: 'NUMBER' });
      for (let i = 0; i < 30; i += 1) created.push((await paging.account(`paged ${i}`, { fields: { grp: i % 3 } })).id);
    });

    it('counts every match, whatever limit and offset, and pages newest first', async () => {
      const expected = created.filter((_, i) => i % 3 === 0).reverse();
      const pages: string[][] = [];
      for (const offset of [0, 4, 8, 12]) {
        const response = await paging.list('account', [
          ['grp', '0'],
          ['limit', '4'],
          ['offset', String(offset)],
        ]);
        expect(response.status).toBe(200);
        expect(response.body.totalCount).toBe(10);
        pages.push(idsOf(response));
      }
      expect(pages.map((page) => page.length)).toEqual([4, 4, 2, 0]);
      expect(pages.flat()).toEqual(expected);
    });

    it('counts negated, ranged and unfiltered lists', async () => {
      const negated = await paging.list('account', [
        ['grp[-equal]', '0'],
        ['limit', '1'],
      ]);
      expect(negated.body.totalCount).toBe(20);
      expect(idsOf(negated)).toEqual([created[29]]);
      const ranged = await paging.list('account', [
        ['grp[greaterThanOrEqual]', '1'],
        ['$name[startsWith]', 'paged 2'],
        ['limit', '25'],
      ]);
      // Names "paged 2" and "paged 20" … "paged 29", of which grp ≥ 1: 2, 20, 22, 23, 25, 26, 28, 29.
      const expected = created.filter((_, i) => i % 3 !== 0 && String(i).startsWith('2')).reverse();
      expect(idsOf(ranged)).toEqual(expected);
      expect(ranged.body.totalCount).toBe(expected.length);
      const all = await paging.list('account', { limit: 5, offset: 28 });
      expect(all.body.totalCount).toBe(30);
      expect(idsOf(all)).toEqual([created[1], created[0]]);
    });

    it('counts a relationship filter exactly through every kind of link write, from either end, in its workspace only', async () => {
      const ws = await createWorkspace(t.http);
      const linking = api.as(ws.key, ws.workspaceId);
      const [x, y] = [await linking.account('Link home X'), await linking.account('Link home Y')];
      const contacts: string[] = [];
      for (let i = 0; i < 5; i += 1)
        contacts.push((await linking.contact(`Linked ${i}`, { relationships: { $account: x.id } })).id);
      await linking.contact('Newest, unlinked');
      const counted = async (pairs: Pairs) => {
        const response = await linking.list('contact', [...pairs, ['limit', '2']]);
        expect(response.status).toBe(200);
        return { total: response.body.totalCount as number, first: idsOf(response) };
      };
      expect(await counted([['$account', x.id]])).toEqual({ total: 5, first: [contacts[4], contacts[3]] });
      // Every page, whether the records are walked newest first (few pages in) or the links fetched.
      const pages = [];
      for (const offset of ['2', '4', '6'])
        pages.push(
          idsOf(
            await linking.list('contact', [
              ['$account', x.id],
              ['limit', '2'],
              ['offset', offset],
            ]),
          ),
        );
      expect(pages).toEqual([[contacts[2], contacts[1]], [contacts[0]], []]);

      // Moved from the contact's end, removed, then moved from the account's end (which unlinks it from X).
      await linking.update('contact', contacts[0], { relationships: { $account: { replace: [y.id] } } });
      await linking.update('contact', contacts[1], { relationships: { $account: { remove: x.id } } });
      await linking.update('account', y.id, { relationships: { $contact: { add: contacts[2] } } });
      expect((await counted([['$account', x.id]])).total).toBe(2);
      expect(await counted([['$account', y.id]])).toEqual({ total: 2, first: [contacts[2], contacts[0]] });
      await linking.update('account', y.id, { relationships: { $contact: { remove: [contacts[0], contacts[2]] } } });
      expect((await counted([['$account', y.id]])).total).toBe(0);

      // Counted from the other end (the account's inverse), negated, and next to another filter.
      const accounts = await linking.list('account', [['$contact', contacts[3]]]);
      expect([accounts.body.totalCount, idsOf(accounts)]).toEqual([1, [x.id]]);
      expect((await counted([['$account[-equal]', x.id]])).total).toBe(4);
      expect(
        (
          await counted([
            ['$account', x.id],
            ['$name[startsWith]', 'Linked 4'],
          ])
        ).total,
      ).toBe(1);

      // An account of another workspace, linked to from there, counts nothing here.
      const elsewhere = await api.account('Elsewhere');
      await api.contact('Not here', { relationships: { $account: elsewhere.id } });
      expect(await counted([['$account', elsewhere.id]])).toEqual({ total: 0, first: [] });
    });
  });
});

import { thrownApiError } from '../../../test/support/errors';
import { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from './cursor';
import { encodeListCursor, PageFilters, resumeListCursor } from './page-cursor';

const ROUTE = '/v1/lists/lst_01JD6Y3Z8Q0N5V4W7X2C9B1A3E/accounts';
const AFTER = { at: '2026-03-01T12:00:00.123456+00:00', id: 'acc_01JD6Y3Z8Q0N5V4W7X2C9B1A3E' };
const FILTERS: PageFilters = { '$name[startsWith]': 'Ac', $stage: 'LEAD' };

const beside = (more: Partial<Parameters<typeof resumeListCursor>[1]> = {}) => ({
  route: ROUTE,
  filters: {},
  maxFilters: 10,
  maxLimit: 25,
  ...more,
});

const refusal = (text: string, given = beside()) => thrownApiError(() => resumeListCursor(text, given));

/** A cursor with some of its members replaced. */
const altered = (changes: Record<string, unknown>) =>
  encodeCursor({
    ...(decodeCursor(encodeListCursor(ROUTE, { limit: 5, filters: FILTERS }, AFTER)) as object),
    ...changes,
  });

describe('list cursors (docs/api.md §3)', () => {
  it('resume the page after the key, with the limit and filters they were read with', () => {
    const cursor = encodeListCursor(ROUTE, { limit: 5, filters: FILTERS }, AFTER);
    expect(resumeListCursor(cursor, beside())).toEqual({ limit: 5, filters: FILTERS, after: AFTER });
    expect(
      resumeListCursor(cursor, beside({ limit: 5, filters: { $stage: 'LEAD', '$name[startsWith]': 'Ac' } })),
    ).toEqual({
      limit: 5,
      filters: FILTERS,
      after: AFTER,
    });
  });

  it('keep the filters in the order they were given, in a null-prototype object', () => {
    const filters = { b: '1', __proto__: 'x', a: '2' } as PageFilters;
    Object.defineProperty(filters, '__proto__', { value: 'x', enumerable: true });
    const resumed = resumeListCursor(encodeListCursor(ROUTE, { limit: 5, filters }, AFTER), beside());
    expect(Object.getPrototypeOf(resumed.filters)).toBeNull();
    expect(Object.entries(resumed.filters)).toEqual(Object.entries(filters));
  });

  it.each([
    ['another route', beside({ route: '/v1/lists/lst_01JD6Y3Z8Q0N5V4W7X2C9B1A3F/accounts' })],
    ['another limit', beside({ limit: 6 })],
    ['other filters', beside({ filters: { $stage: 'WON', '$name[startsWith]': 'Ac' } })],
    ['some of its filters', beside({ filters: { $stage: 'LEAD' } })],
    ['more filters', beside({ filters: { ...FILTERS, $x: '1' } })],
    ['a route taking fewer filters', beside({ maxFilters: 1 })],
    ['a lower largest limit', beside({ maxLimit: 4 })],
  ])('refuse a cursor beside %s (param cursor)', (_case, given) => {
    const error = refusal(encodeListCursor(ROUTE, { limit: 5, filters: FILTERS }, AFTER), given);
    expect([error.status, error.code, error.param]).toEqual([400, 'invalid_parameter', 'cursor']);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown member', { offset: 0 }],
    ['no route', { route: undefined }],
    ['a limit of 0', { limit: 0 }],
    ['a fractional limit', { limit: 1.5 }],
    ['a limit as text', { limit: '5' }],
    ['filters as an object', { filters: { a: 'b' } }],
    ['a filter of three members', { filters: [['a', 'b', 'c']] }],
    ['a filter value that is a number', { filters: [['a', 1]] }],
    [
      'a filter given twice',
      {
        filters: [
          ['a', 'b'],
          ['a', 'c'],
        ],
      },
    ],
    ['eleven filters', { filters: Array.from({ length: 11 }, (_, i) => [`f${i}`, 'v']) }],
    ['both filters and a digest', { filtersDigest: 'x' }],
    ['neither filters nor a digest', { filters: undefined }],
    ['no key', { after: undefined }],
    ['a key of three members', { after: [AFTER.at, AFTER.id, 'x'] }],
    ['an id of no kind', { after: [AFTER.at, 'xyz_01JD6Y3Z8Q0N5V4W7X2C9B1A3E'] }],
    ['an id with SQL', { after: [AFTER.at, "acc_' OR 1=1 --"] }],
    ...[
      ['a month 13', '2026-13-01T00:00:00+00:00'],
      ['February 29 of a common year', '2025-02-29T00:00:00+00:00'],
      ['hour 24', '2026-03-01T24:00:00+00:00'],
      ['a leap second', '2026-03-01T23:59:60+00:00'],
      ['year 0', '0000-03-01T00:00:00+00:00'],
      ['a year of five digits', '10000-03-01T00:00:00+00:00'],
      ['a date before Christ', '0044-03-15T12:00:00+00:00 BC'],
      ['nanoseconds', '2026-03-01T00:00:00.123456789+00:00'],
      ['an offset of 16 hours', '2026-03-01T00:00:00+16:00'],
      ['no offset', '2026-03-01T00:00:00'],
      ['a space for the T', '2026-03-01 00:00:00+00'],
      ['infinity', 'infinity'],
    ].map(([name, at]): [string, Record<string, unknown>] => [`a timestamp with ${name}`, { after: [at, AFTER.id] }]),
  ])('refuse a cursor with %s as not one the service gave (param cursor)', (_case, changes) => {
    const error = refusal(altered(changes));
    expect([error.status, error.code, error.param, error.message]).toEqual([
      400,
      'invalid_parameter',
      'cursor',
      expect.any(String),
    ]);
  });

  it('take a serial number for the key on a list keyed by serials, and only there', () => {
    const serial = altered({ after: [AFTER.at, '9007199254740993'] });
    expect(resumeListCursor(serial, beside({ serialKeys: true })).after.id).toBe('9007199254740993');
    expect(refusal(serial).param).toBe('cursor');
    for (const key of [AFTER.id, '0', '-1', '1.5', '1'.repeat(19), "1' OR 1=1 --"]) {
      expect({ key, code: refusal(altered({ after: [AFTER.at, key] }), beside({ serialKeys: true })).code }).toEqual({
        key,
        code: 'invalid_parameter',
      });
    }
  });

  it.each([
    ['Z for UTC', '2026-03-01T12:00:00Z'],
    ['another offset', '2026-03-01T17:30:00.5+05:30'],
    ['an offset with seconds (PostgreSQL writes local mean time so)', '1890-01-01T00:00:00+00:53:28'],
    ['February 29 of a leap year', '2024-02-29T00:00:00+00:00'],
    ['year 1', '0001-01-01T00:00:00+00:00'],
  ])('take a timestamp with %s', (_case, at) => {
    expect(resumeListCursor(altered({ after: [at, AFTER.id] }), beside()).after.at).toBe(at);
  });

  it('carry filters too long for a cursor as their digest, which must then be sent beside it', () => {
    const long = { '$name[startsWith]': 'x'.repeat(MAX_CURSOR_LENGTH), $stage: 'LEAD' };
    const cursor = encodeListCursor(ROUTE, { limit: 5, filters: long }, AFTER);
    expect(cursor.length).toBeLessThan(1000);
    expect(
      resumeListCursor(cursor, beside({ filters: { $stage: 'LEAD', '$name[startsWith]': long['$name[startsWith]'] } })),
    ).toEqual({
      limit: 5,
      filters: { $stage: 'LEAD', '$name[startsWith]': long['$name[startsWith]'] },
      after: AFTER,
    });
    expect(refusal(cursor).message).toMatch(/send them beside it/);
    expect(refusal(cursor, beside({ filters: { ...long, $stage: 'WON' } })).param).toBe('cursor');
  });
});

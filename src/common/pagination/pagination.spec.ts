import { thrownApiError } from '../../../test/support/errors';
import { encodeListCursor } from './page-cursor';
import { endPage, MAX_FILTERS, MAX_PAGE_SIZE, parsePageRequest } from './pagination';

type Query = Parameters<typeof parsePageRequest>[0];

const WITHOUT_FILTERS = {};
const ROUTE = '/v1/notes';
const WITH_FILTERS = { filters: { '$title[startsWith]': 'Title' } };

const refusal = (query: Query, options: typeof WITHOUT_FILTERS = WITHOUT_FILTERS) =>
  thrownApiError(() => parsePageRequest(query, options, ROUTE));

describe('parsePageRequest (docs/api.md §3)', () => {
  it('defaults to limit 25, offset 0', () => {
    expect(MAX_PAGE_SIZE).toBe(25);
    expect(parsePageRequest({}, WITHOUT_FILTERS, ROUTE)).toEqual({ limit: 25, offset: 0, filters: {} });
  });

  it.each([
    ['1', 1],
    ['7', 7],
    ['25', 25],
    ['05', 5],
  ])('accepts limit=%s', (limit, expected) => {
    expect(parsePageRequest({ limit }, WITHOUT_FILTERS, ROUTE).limit).toBe(expected);
  });

  it.each([
    ['0', '0'],
    ['1000', '1000'],
    ['999999999', '999999999'],
    ['the largest safe integer', String(Number.MAX_SAFE_INTEGER)],
  ])('accepts offset %s', (_case, offset) => {
    expect(parsePageRequest({ offset }, WITHOUT_FILTERS, ROUTE).offset).toBe(Number(offset));
  });

  it.each<[string, Query[string]]>([
    ['0', '0'],
    ['26', '26'],
    ['-1', '-1'],
    ['1.5', '1.5'],
    ['abc', 'abc'],
    ['empty', ''],
    ['with spaces', ' 5'],
    ['+5', '+5'],
    ['hexadecimal', '0x10'],
    ['exponent', '1e1'],
    ['repeated', ['1', '2']],
  ])('refuses limit %s with 400 invalid_parameter', (_case, limit) => {
    const error = refusal({ limit });
    expect([error.status, error.code, error.param]).toEqual([400, 'invalid_parameter', 'limit']);
    expect(error.message).toBe('limit must be an integer from 1 to 25');
  });

  it.each<[string, Query[string]]>([
    ['-1', '-1'],
    ['1.5', '1.5'],
    ['abc', 'abc'],
    ['empty', ''],
    ['beyond the largest safe integer', '9007199254740992'],
    ['repeated', ['0', '1']],
  ])('refuses offset %s with 400 invalid_parameter', (_case, offset) => {
    const error = refusal({ offset });
    expect([error.status, error.code, error.param]).toEqual([400, 'invalid_parameter', 'offset']);
    expect(error.message).toBe('offset must be an integer ≥ 0');
  });

  it('refuses any other parameter on a route without filters, naming it', () => {
    const error = refusal({ limit: '5', sort: 'asc' });
    expect([error.status, error.code, error.param]).toEqual([400, 'invalid_parameter', 'sort']);
    expect(error.message).toContain('sort');
  });

  it('hands the other parameters over as filters on a route that takes them', () => {
    expect(
      parsePageRequest({ limit: '5', offset: '10', '$title[startsWith]': 'Q', tag: ['a', 'b'] }, WITH_FILTERS, ROUTE),
    ).toEqual({ limit: 5, offset: 10, filters: { '$title[startsWith]': 'Q', tag: ['a', 'b'] } });
  });

  it(`combines up to ${MAX_FILTERS} filters and refuses one more, naming it (planning grows faster than their number)`, () => {
    const filters = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, index) => [`f${index}[startsWith]`, 'v']));
    expect(Object.keys(parsePageRequest(filters(MAX_FILTERS), WITH_FILTERS, ROUTE).filters)).toHaveLength(MAX_FILTERS);
    const error = refusal(filters(MAX_FILTERS + 1), WITH_FILTERS);
    expect([error.status, error.code, error.param]).toEqual([400, 'invalid_filter', `f${MAX_FILTERS}[startsWith]`]);
  });

  it('checks limit and offset on routes with filters too', () => {
    expect(refusal({ limit: '26', x: '1' }, WITH_FILTERS).param).toBe('limit');
  });

  describe('with a cursor', () => {
    const after = { at: '2026-03-01T12:00:00.123+00:00', id: 'note_01JD6Y3Z8Q0N5V4W7X2C9B1A3E' };
    const cursor = encodeListCursor(ROUTE, { limit: 5, filters: { '$title[startsWith]': 'Q' } }, after);
    const param = (query: Query) => {
      const error = refusal(query, WITH_FILTERS);
      return [error.status, error.code, error.param];
    };

    it('resumes the cursor’s page, its limit and filters, from offset 0', () => {
      const page = { limit: 5, offset: 0, filters: { '$title[startsWith]': 'Q' }, after };
      expect(parsePageRequest({ cursor }, WITH_FILTERS, ROUTE)).toEqual(page);
      expect(parsePageRequest({ cursor, limit: '5', '$title[startsWith]': 'Q' }, WITH_FILTERS, ROUTE)).toEqual(page);
    });

    it('refuses offset beside it, 0 included, naming offset', () => {
      expect(param({ cursor, offset: '0' })).toEqual([400, 'invalid_parameter', 'offset']);
      expect(param({ cursor, offset: '5' })).toEqual([400, 'invalid_parameter', 'offset']);
    });

    it.each<[string, Query]>([
      ['given twice', { cursor: [cursor, cursor] }],
      ['of another route', { cursor: encodeListCursor('/v1/tasks', { limit: 5, filters: {} }, after) }],
      ['beside another limit', { cursor, limit: '6' }],
      ['beside another filter', { cursor, '$title[startsWith]': 'R' }],
    ])('refuses a cursor %s, naming cursor', (_case, query) => {
      expect(param(query)).toEqual([400, 'invalid_parameter', 'cursor']);
    });

    it('refuses cursor[] as a malformed paging parameter, not a filter', () => {
      expect(param({ 'cursor[]': cursor })).toEqual([400, 'invalid_parameter', 'cursor[]']);
      expect(refusal({ 'cursor[]': cursor }).param).toBe('cursor[]');
    });
  });
});

describe('endPage', () => {
  const page = { limit: 2 };
  const keyOf = (row: { id: string; at: string }) => row;
  const rows = ['c', 'b', 'a'].map((id) => ({ id, at: `2026-03-01T12:00:00.00${id.charCodeAt(0) - 96}+00:00` }));

  it('keeps the limit of the rows read, and the key of the last one kept when one more was read', () => {
    expect(endPage(page, { rows, total: 7 }, keyOf)).toEqual({ rows: rows.slice(0, 2), total: 7, next: rows[1] });
  });

  it('says there is no next page when no row more was read, also when the page is full', () => {
    for (const read of [rows.slice(0, 2), rows.slice(0, 1), []]) {
      expect(endPage(page, { rows: read, total: read.length }, keyOf)).toEqual({
        rows: read,
        total: read.length,
        next: null,
      });
    }
  });
});

import { ApiError } from '../errors/api-error';
import { MAX_FILTERS, MAX_PAGE_SIZE, parsePageRequest } from './pagination';

type Query = Parameters<typeof parsePageRequest>[0];

const WITHOUT_FILTERS = {};
const ROUTE = '/v1/notes';
const WITH_FILTERS = { filters: { '$title[startsWith]': 'Title' } };

function refusal(query: Query, options: typeof WITHOUT_FILTERS = WITHOUT_FILTERS): ApiError {
  try {
    parsePageRequest(query, options, ROUTE);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(query)} was accepted`);
}

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
    const filters = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`f${index}[startsWith]`, 'v']));
    expect(Object.keys(parsePageRequest(filters(MAX_FILTERS), WITH_FILTERS, ROUTE).filters)).toHaveLength(MAX_FILTERS);
    const error = refusal(filters(MAX_FILTERS + 1), WITH_FILTERS);
    expect([error.status, error.code, error.param]).toEqual([400, 'invalid_filter', `f${MAX_FILTERS}[startsWith]`]);
  });

  it('checks limit and offset on routes with filters too', () => {
    expect(refusal({ limit: '26', x: '1' }, WITH_FILTERS).param).toBe('limit');
  });
});

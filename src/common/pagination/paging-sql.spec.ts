import { sourceFiles } from '../../../test/support/source-files';
import { BoundParameters, pagingSql } from './paging-sql';

const HELPER = 'common/pagination/paging-sql.ts';

/** Parameters as a statement binds them, in order. */
class SqlParameterList implements BoundParameters {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

describe('pages are cut one way', () => {
  const files = sourceFiles();

  it('writes every LIMIT or OFFSET with a value, and the page-plus-count envelope, only in the paging helper', () => {
    // A literal (LIMIT 1, the OFFSET 0 planner fence) cuts no page and may be written anywhere.
    const cuts = /\b(LIMIT|OFFSET)\s+(?!\d+\b)|json_agg\(p ORDER BY/;
    const writers = files.filter((file) => file.name !== HELPER && cuts.test(file.text)).map((file) => file.name);
    expect(writers).toEqual([]);
  });

  it('sees what it forbids', () => {
    expect(files.find((file) => file.name === HELPER)?.text).toMatch(/LIMIT \$\{/);
  });
});

describe('pagingSql', () => {
  it('binds the limit and the offset', () => {
    const params = new SqlParameterList();
    params.add('wks');
    expect(pagingSql({ limit: 25, offset: 50 }, params)).toBe('LIMIT $2 OFFSET $3');
    expect(params.values).toEqual(['wks', 25, 50]);
  });

  it('writes out the limit, and leaves out the first offset, of a statement planned once', () => {
    const params = new SqlParameterList();
    expect(pagingSql({ limit: 7, offset: 0 }, params, { plannedOnce: true })).toBe('LIMIT 7');
    expect(pagingSql({ limit: 7, offset: 14 }, params, { plannedOnce: true })).toBe('LIMIT 7 OFFSET $1');
    expect(params.values).toEqual([14]);
  });

  it.each([0, 26, 2.5, Number.NaN, '1; DROP TABLE records' as unknown as number])(
    'writes out no limit but an integer of 1 to 25 (%s)',
    (limit) => {
      expect(() => pagingSql({ limit, offset: 0 }, new SqlParameterList(), { plannedOnce: true })).toThrow(/integer of 1 to 25/);
    },
  );
});

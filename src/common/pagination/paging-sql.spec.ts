import { sourceFiles } from '../../../test/support/source-files';
import { afterKeySql, BoundParameters, keysetPageSql, pagingSql } from './paging-sql';

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

  // A literal (LIMIT 1, the OFFSET 0 planner fence) cuts no page and may be written anywhere.
  const cuts = /\b(LIMIT|OFFSET)\s+(?!\d+\b)|json_agg\(p ORDER BY/;
  // A cursor page's keyset condition: a row comparison, `(created_at, id) < (…)`.
  const keysets = /\(\s*[\w.${}]+\s*,\s*[\w.${}]+\s*\)\s*[<>]=?\s*\(/;

  it('writes every LIMIT or OFFSET with a value, and the page-plus-count envelope, only in the paging helper', () => {
    const writers = files.filter((file) => file.name !== HELPER && cuts.test(file.text)).map((file) => file.name);
    expect(writers).toEqual([]);
  });

  it('writes every keyset condition of a cursor page only in the paging helper', () => {
    const writers = files.filter((file) => file.name !== HELPER && keysets.test(file.text)).map((file) => file.name);
    expect(writers).toEqual([]);
  });

  it('sees what it forbids', () => {
    const helper = files.find((file) => file.name === HELPER)?.text;
    expect(helper).toMatch(/LIMIT \$\{/);
    expect(helper).toMatch(keysets);
    expect('WHERE (r.created_at, r.id) < ($3::timestamptz, $4)').toMatch(keysets);
  });
});

describe('pagingSql', () => {
  it('binds the rows it reads, the limit and one more that says whether a page follows, and the offset', () => {
    const params = new SqlParameterList();
    params.add('wks');
    expect(pagingSql({ limit: 25, offset: 50 }, params)).toBe('LIMIT $2 OFFSET $3');
    expect(params.values).toEqual(['wks', 26, 50]);
  });

  it('writes out the rows read, and leaves out the first offset, of a statement planned once', () => {
    const params = new SqlParameterList();
    expect(pagingSql({ limit: 7, offset: 0 }, params, { plannedOnce: true })).toBe('LIMIT 8');
    expect(pagingSql({ limit: 7, offset: 14 }, params, { plannedOnce: true })).toBe('LIMIT 8 OFFSET $1');
    expect(pagingSql({ limit: 25, offset: 0 }, params, { plannedOnce: true })).toBe('LIMIT 26');
    expect(pagingSql({ limit: 1, offset: 0 }, params, { plannedOnce: true })).toBe('LIMIT 2');
    expect(params.values).toEqual([14]);
  });

  it.each([0, 26, 2.5, Number.NaN, '1; DROP TABLE records' as unknown as number])(
    'writes out no limit but an integer of 1 to 25 (%s)',
    (limit) => {
      expect(() => pagingSql({ limit, offset: 0 }, new SqlParameterList(), { plannedOnce: true })).toThrow(
        /integer of 1 to 25/,
      );
    },
  );
});

describe('afterKeySql', () => {
  const after = { at: '2026-03-01T12:00:00.123456+00:00', id: 'note_01JD6Y3Z8Q0N5V4W7X2C9B1A3E' };

  it('is nothing without a cursor', () => {
    const params = new SqlParameterList();
    expect(afterKeySql({ limit: 5, offset: 0 }, ['r.created_at', 'r.id'], params)).toBe('');
    expect(params.values).toEqual([]);
  });

  it('compares the row (time, id) below the key, strictly, the key bound with its timestamp as written', () => {
    const params = new SqlParameterList();
    params.add('wks');
    expect(afterKeySql({ limit: 5, offset: 0, after }, ['v.created_at', 'v.record_id'], params)).toBe(
      ' AND (v.created_at, v.record_id) < ($2::timestamptz, $3)',
    );
    expect(params.values).toEqual(['wks', after.at, after.id]);
  });
});

describe('keysetPageSql', () => {
  it('binds the where, then the cursor, then the window; orders by the key as the table has it, the rows by its bare names', () => {
    const params = new SqlParameterList();
    const where = `f.workspace_id = ${params.add('wks')}`;
    const after = { at: '2026-03-01T12:00:00.123456+00:00', id: 'file_1' };
    const sql = keysetPageSql(
      { columns: 'f.id, f.created_at', from: 'files f', where, key: ['f.created_at', 'f.id'] },
      { limit: 2, offset: 0, after },
      params,
    );
    expect(sql.replace(/\s+/g, ' ')).toBe(
      'SELECT (SELECT count(*)::int FROM files f WHERE f.workspace_id = $1) AS total, ' +
        "coalesce((SELECT json_agg(p ORDER BY p.created_at DESC, p.id DESC) FROM (SELECT f.id, f.created_at FROM files f WHERE f.workspace_id = $1 AND (f.created_at, f.id) < ($2::timestamptz, $3) ORDER BY f.created_at DESC, f.id DESC LIMIT $4 OFFSET $5) p), '[]'::json) AS rows",
    );
    expect(params.values).toEqual(['wks', after.at, after.id, 3, 0]);
  });
});

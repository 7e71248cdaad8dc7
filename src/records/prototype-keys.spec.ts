import { ApiError } from '../common/errors/api-error';
import type { ObjectTypeDefinition } from './object-type';
import { filterSql } from './record-filters';
import { SqlParameterList } from './field-types/field-type';
import { readRecordWrite } from './record-write';

/** A type with no field or relationship named like a member of Object.prototype. */
const PLAIN_TYPE: ObjectTypeDefinition = {
  slug: 'plain',
  label: 'Plain',
  fields: [
    {
      key: 'title',
      label: 'Title',
      valueType: 'TEXT',
      description: null,
      typeConfiguration: {},
      readOnly: false,
      required: false,
    },
  ],
  relationships: [],
};

/** A type whose keys are such names, with the field `constructor` and the relationship `hasOwnProperty` required. */
const PROTOTYPE_NAMED_TYPE: ObjectTypeDefinition = {
  slug: 'constructor',
  label: 'Constructor',
  fields: [
    {
      key: 'constructor',
      label: 'Maker',
      valueType: 'TEXT',
      description: null,
      typeConfiguration: {},
      readOnly: false,
      required: true,
    },
    {
      key: 'toString',
      label: 'Size',
      valueType: 'NUMBER',
      description: null,
      typeConfiguration: {},
      readOnly: false,
      required: false,
    },
  ],
  relationships: [
    {
      key: 'hasOwnProperty',
      label: 'Owner',
      cardinality: 'HAS_ONE',
      objectType: 'account',
      description: null,
      readOnly: false,
      required: true,
      binding: { link: 'constructor:hasOwnProperty', side: 'source' },
    },
  ],
};

function errorOf(action: () => unknown): { status: number; code: string; param?: string } {
  try {
    action();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, param: error.param };
  }
  throw new Error('expected an ApiError');
}

/** Filters as Node's query parser hands them over: a null-prototype object, `__proto__` an own key like any other. */
function queryOf(entries: [string, string][]): Record<string, string> {
  return Object.assign(Object.create(null) as Record<string, string>, Object.fromEntries(entries));
}

describe('filterSql with keys named like Object.prototype members', () => {
  it.each([
    '__proto__',
    'constructor',
    'toString',
    'valueOf',
    'hasOwnProperty',
    'constructor[equal]',
    'toString[-startsWith]',
  ])('refuses %s on a type that does not define it: 400 unknown_field', (name) => {
    const query = queryOf([[name, '1']]);
    expect(Object.keys(query)).toEqual([name]);
    expect(errorOf(() => filterSql(PLAIN_TYPE, query, new SqlParameterList()))).toEqual({
      status: 400,
      code: 'unknown_field',
      param: name,
    });
  });

  it('filters by them on a type that defines them', () => {
    const params = new SqlParameterList();
    const filters = filterSql(
      PROTOTYPE_NAMED_TYPE,
      queryOf([
        ['constructor', 'Acme'],
        ['toString[-greaterThan]', '3'],
        ['hasOwnProperty', 'acc_1'],
      ]),
      params,
    );
    expect(filters.conditions).toHaveLength(3);
    expect(params.values).toEqual(
      expect.arrayContaining([JSON.stringify({ constructor: 'Acme' }), '3', 'constructor:hasOwnProperty', 'acc_1']),
    );
  });
});

describe('readRecordWrite with keys named like Object.prototype members', () => {
  it('does not take an inherited member for a value: a required field or relationship stays missing', () => {
    expect(
      errorOf(() =>
        readRecordWrite(
          PROTOTYPE_NAMED_TYPE,
          { fields: { toString: 1 }, relationships: { hasOwnProperty: 'acc_1' } },
          true,
        ),
      ),
    ).toEqual({
      status: 422,
      code: 'parameter_missing',
      param: 'fields.constructor',
    });
    expect(errorOf(() => readRecordWrite(PROTOTYPE_NAMED_TYPE, { fields: { constructor: 'Acme' } }, true))).toEqual({
      status: 422,
      code: 'parameter_missing',
      param: 'relationships.hasOwnProperty',
    });
    const write = readRecordWrite(
      PROTOTYPE_NAMED_TYPE,
      { fields: { constructor: 'Acme' }, relationships: { hasOwnProperty: 'acc_1' } },
      true,
    );
    expect([...write.fields]).toEqual([['constructor', 'Acme']]);
    expect(write.links.map((change) => [change.definition.key, change.set])).toEqual([['hasOwnProperty', ['acc_1']]]);
  });

  it('refuses them where the type does not define them, and __proto__ everywhere', () => {
    const body = (json: string) => JSON.parse(json) as unknown;
    expect(errorOf(() => readRecordWrite(PLAIN_TYPE, body('{"fields":{"constructor":"x"}}'), true))).toEqual({
      status: 400,
      code: 'unknown_field',
      param: 'fields.constructor',
    });
    expect(errorOf(() => readRecordWrite(PLAIN_TYPE, body('{"fields":{"__proto__":{"title":"x"}}}'), true))).toEqual({
      status: 400,
      code: 'unknown_field',
      param: 'fields.__proto__',
    });
    expect(
      errorOf(() => readRecordWrite(PLAIN_TYPE, body('{"fields":{},"relationships":{"toString":"x"}}'), true)),
    ).toEqual({
      status: 400,
      code: 'unknown_relationship',
      param: 'relationships.toString',
    });
    expect(errorOf(() => readRecordWrite(PLAIN_TYPE, body('{"fields":{},"valueOf":1}'), true))).toEqual({
      status: 400,
      code: 'unknown_field',
      param: 'valueOf',
    });
  });
});

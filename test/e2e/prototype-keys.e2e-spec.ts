import { apiSuite } from '../support/api-suite';
import { costGrowth } from '../support/cost-growth';
import { expectError } from '../support/errors';
import { idsOf } from '../support/records';
import { adminHeaders } from '../support/test-app';
import { uploadFile } from '../support/transcripts';

/**
 * Keys that name members of `Object.prototype` are valid custom keys (and `constructor` a valid type
 * slug): every step from definition to filter must treat them as the user's keys, never as the
 * inherited members. `__proto__` is never a valid key and is refused wherever it is sent.
 */
const PROTOTYPE_KEYS = ['constructor', 'toString', 'valueOf', 'hasOwnProperty'] as const;

interface Envelope {
  id: string;
  fields: Record<string, { value: unknown; valueType: string }>;
  relationships: Record<string, { values: string[] }>;
}
/** Typed by a string key: TypeScript reads `fields.toString` as the inherited method. */
const valueAt = (envelope: Envelope, key: string) => envelope.fields[key].value;
const linksAt = (envelope: Envelope, key: string) => envelope.relationships[key].values;

/** Every name a plain object inherits, and `prototype`: none is a member of any body the service defines. */
const INHERITED_NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

/** A JSON body with `__proto__` as an own member (an object literal would set the prototype instead). */
const withProto = (json: string): unknown => JSON.parse(json) as unknown;

describe('custom keys named like Object.prototype members', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  /** Defines an object type: `body` as an object, or as JSON text, sent as it is. */
  const defineType = (body: unknown) =>
    suite.t.http
      .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types`)
      .set(adminHeaders())
      .set('Content-Type', 'application/json')
      .send(body as object);
  const adminPost = (path: string, body: unknown) =>
    suite.t.http
      .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types/${path}`)
      .set(adminHeaders())
      .send(body as object);
  const ok = <T = Record<string, unknown>>(response: { status: number; body: unknown }): T => {
    expect({ status: response.status, error: response.status === 200 ? undefined : response.body }).toEqual({
      status: 200,
      error: undefined,
    });
    return response.body as T;
  };
  const listIds = async (path: string) => {
    const response = await get(path);
    expect({ path, status: response.status, body: response.status === 200 ? undefined : response.body }).toEqual({
      path,
      status: 200,
      body: undefined,
    });
    suite.openapi.assert(response);
    return idsOf(response);
  };

  beforeAll(async () => {
    ok(
      await defineType({
        slug: 'gadget',
        label: 'Gadget',
        fields: {
          constructor: { label: 'Maker', valueType: 'TEXT', unique: true },
          toString: { label: 'Size', valueType: 'NUMBER' },
          valueOf: { label: 'Working', valueType: 'CHECKBOX', required: true },
          hasOwnProperty: {
            label: 'Kind',
            valueType: 'SINGLE_SELECT',
            typeConfiguration: {
              options: [
                { id: 'constructor', label: 'toString' },
                { id: 'valueOf', label: 'hasOwnProperty' },
              ],
            },
          },
        },
      }),
    );
    ok(
      await defineType({
        slug: 'constructor',
        label: 'Constructor',
        relationships: {
          constructor: { label: 'Account', cardinality: 'HAS_ONE', objectType: 'account' },
          toString: { label: 'Gadgets', cardinality: 'HAS_MANY', objectType: 'gadget' },
          valueOf: { label: 'Members', cardinality: 'HAS_MANY', objectType: 'member' },
          hasOwnProperty: { label: 'Peers', cardinality: 'HAS_MANY', objectType: 'constructor', inverseKey: 'peerOf' },
        },
      }),
    );
    ok(await adminPost('note/fields', { key: 'constructor', label: 'Maker', valueType: 'TEXT' }));
    ok(await adminPost('note/fields', { key: 'toString', label: 'Size', valueType: 'NUMBER' }));
    ok(await adminPost('note/fields', { key: 'valueOf', label: 'Working', valueType: 'CHECKBOX' }));
    ok(
      await adminPost('note/fields', {
        key: 'hasOwnProperty',
        label: 'Tags',
        valueType: 'TEXT',
        typeConfiguration: { multipleValues: true },
      }),
    );
    ok(
      await adminPost('task/relationships', {
        key: 'constructor',
        label: 'Client',
        cardinality: 'HAS_ONE',
        objectType: 'account',
        inverseKey: 'toString',
      }),
    );
    ok(
      await adminPost('task/relationships', {
        key: 'hasOwnProperty',
        label: 'People',
        cardinality: 'HAS_MANY',
        objectType: 'contact',
        inverseKey: 'valueOf',
      }),
    );
  });

  it('keeps every such key in the definitions, whether defined with the type or one by one', async () => {
    const gadget = ok<{ fieldDefinitions: Record<string, { valueType: string; required: boolean }> }>(
      await get('/v1/objects/gadget/definitions'),
    );
    expect(Object.keys(gadget.fieldDefinitions).sort()).toEqual([...PROTOTYPE_KEYS].sort());
    expect(gadget.fieldDefinitions.valueOf).toMatchObject({ valueType: 'CHECKBOX', required: true });
    const type = ok<{ relationshipDefinitions: Record<string, { objectType: string }> }>(
      await get('/v1/objects/constructor/definitions'),
    );
    expect(Object.keys(type.relationshipDefinitions).sort()).toEqual([...PROTOTYPE_KEYS, 'peerOf'].sort());
    expect(type.relationshipDefinitions.hasOwnProperty).toMatchObject({ objectType: 'constructor' });
    const note = ok<{ fieldDefinitions: Record<string, unknown> }>(await get('/v1/notes/definitions'));
    expect(Object.keys(note.fieldDefinitions)).toEqual(expect.arrayContaining([...PROTOTYPE_KEYS]));
    const task = ok<{ relationshipDefinitions: Record<string, unknown> }>(await get('/v1/tasks/definitions'));
    expect(task.relationshipDefinitions).toMatchObject({
      constructor: { objectType: 'account' },
      hasOwnProperty: { objectType: 'contact' },
    });
    expect(
      ok<{ relationshipDefinitions: Record<string, unknown> }>(await get('/v1/accounts/definitions'))
        .relationshipDefinitions,
    ).toMatchObject({ toString: { objectType: 'task', readOnly: true } });
    expect(ok<{ data: unknown[] }>(await get('/v1/objects')).data).toEqual([
      { label: 'Gadget', objectType: 'gadget' },
      { label: 'Constructor', objectType: 'constructor' },
    ]);
  });

  it('writes, reads, updates, lists and filters values under those keys', async () => {
    expectError(
      await post('/v1/objects/gadget/values', { fields: { constructor: 'Acme' } }),
      422,
      'parameter_missing',
      'fields.valueOf',
    );
    const unset = ok<{ id: string; fields: Record<string, unknown> }>(
      await post('/v1/objects/gadget/values', { fields: { valueOf: false } }),
    );
    expect(unset.fields).toEqual({
      constructor: { value: null, valueType: 'TEXT' },
      toString: { value: null, valueType: 'NUMBER' },
      valueOf: { value: false, valueType: 'CHECKBOX' },
      hasOwnProperty: { value: null, valueType: 'SINGLE_SELECT' },
    });
    const full = ok<{ id: string; fields: Record<string, unknown> }>(
      await post('/v1/objects/gadget/values', {
        fields: { constructor: 'Acme', toString: 3, valueOf: true, hasOwnProperty: 'toString' },
      }),
    );
    expect(full.fields).toEqual({
      constructor: { value: 'Acme', valueType: 'TEXT' },
      toString: { value: 3, valueType: 'NUMBER' },
      valueOf: { value: true, valueType: 'CHECKBOX' },
      hasOwnProperty: { value: 'constructor', valueType: 'SINGLE_SELECT' },
    });
    // A unique field that is unset on one record is no duplicate of another's value.
    ok(await post('/v1/objects/gadget/values', { fields: { valueOf: true, toString: 5 } }));
    expectError(
      await post('/v1/objects/gadget/values', { fields: { valueOf: true, constructor: 'Acme' } }),
      409,
      'duplicate_value',
      'fields.constructor',
    );
    const updated = ok<Envelope>(
      await post(`/v1/objects/gadget/values/${full.id}`, {
        fields: { toString: 4, hasOwnProperty: 'hasOwnProperty', constructor: null },
      }),
    );
    expect(['toString', 'hasOwnProperty', 'constructor'].map((key) => valueAt(updated, key))).toEqual([
      4,
      'valueOf',
      null,
    ]);
    expectError(
      await post(`/v1/objects/gadget/values/${full.id}`, { fields: { valueOf: null } }),
      422,
      'parameter_missing',
      'fields.valueOf',
    );
    expect(ok<{ fields: unknown }>(await get(`/v1/objects/gadget/values/${full.id}`)).fields).toEqual(updated.fields);

    expect(await listIds('/v1/objects/gadget?toString[greaterThan]=3.5')).toEqual(expect.arrayContaining([full.id]));
    expect(await listIds('/v1/objects/gadget?toString[lessThan]=4.5')).toEqual([full.id]);
    expect(await listIds('/v1/objects/gadget?hasOwnProperty=valueOf')).toEqual([full.id]);
    expect(await listIds('/v1/objects/gadget?hasOwnProperty=toString')).toEqual([]);
    expect(await listIds('/v1/objects/gadget?valueOf=false')).toEqual([unset.id]);
    expect(await listIds('/v1/objects/gadget?valueOf[-equal]=true')).toEqual([unset.id]);

    const note = ok<{ id: string; fields: Record<string, { value: unknown }> }>(
      await post('/v1/notes', {
        fields: { $title: 'N', constructor: 'Zed', toString: 7, valueOf: true, hasOwnProperty: ['a', 'b'] },
      }),
    );
    expect(PROTOTYPE_KEYS.map((key) => note.fields[key].value)).toEqual(['Zed', 7, true, ['a', 'b']]);
    const bare = ok<{ id: string; fields: Record<string, { value: unknown }> }>(
      await post('/v1/notes', { fields: { $title: 'Bare' } }),
    );
    expect(PROTOTYPE_KEYS.map((key) => bare.fields[key])).toEqual([
      { value: null, valueType: 'TEXT' },
      { value: null, valueType: 'NUMBER' },
      { value: null, valueType: 'CHECKBOX' },
      { value: null, valueType: 'TEXT' },
    ]);
    expect(await listIds('/v1/notes?constructor=Zed')).toEqual([note.id]);
    expect(
      await listIds('/v1/notes?constructor[startsWith]=Z&toString[greaterThanOrEqual]=7&valueOf=true&hasOwnProperty=b'),
    ).toEqual([note.id]);
    expect(await listIds('/v1/notes?constructor[-equal]=Zed')).toEqual(expect.arrayContaining([bare.id]));
    expect(await listIds('/v1/notes?constructor[-equal]=Zed')).not.toContain(note.id);
  });

  it('links, reads back and filters through relationships under those keys', async () => {
    const account = ok<{ id: string }>(await post('/v1/accounts', { fields: { $name: 'Acme' } })).id;
    const gadget = ok<{ id: string }>(await post('/v1/objects/gadget/values', { fields: { valueOf: true } })).id;
    const peer = ok<{ id: string }>(await post('/v1/objects/constructor/values', { fields: {} }));
    expect(peer.id).toMatch(/^rec_[0-9A-Z]{26}$/);
    const created = ok<{ id: string; relationships: Record<string, { values: string[] }> }>(
      await post('/v1/objects/constructor/values', {
        fields: {},
        relationships: {
          constructor: account,
          toString: [gadget],
          valueOf: [suite.ws.memberId],
          hasOwnProperty: [peer.id],
        },
      }),
    );
    expect(created.relationships).toEqual({
      constructor: { cardinality: 'has_one', objectType: 'account', values: [account] },
      toString: { cardinality: 'has_many', objectType: 'gadget', values: [gadget] },
      valueOf: { cardinality: 'has_many', objectType: 'member', values: [suite.ws.memberId] },
      hasOwnProperty: { cardinality: 'has_many', objectType: 'constructor', values: [peer.id] },
      peerOf: { cardinality: 'has_many', objectType: 'constructor', values: [] },
    });
    expect(
      ok<{ relationships: Record<string, { values: string[] }> }>(
        await get(`/v1/objects/constructor/values/${peer.id}`),
      ).relationships.peerOf.values,
    ).toEqual([created.id]);
    expect(
      ok<{ relationships: Record<string, { values: string[] }> }>(await get(`/v1/objects/gadget/values/${gadget}`))
        .relationships.constructor_toString.values,
    ).toEqual([created.id]);
    const unlinked = ok<Envelope>(
      await post(`/v1/objects/constructor/values/${created.id}`, {
        relationships: { hasOwnProperty: { remove: peer.id }, valueOf: { replace: [] } },
      }),
    );
    expect([linksAt(unlinked, 'hasOwnProperty'), linksAt(unlinked, 'valueOf')]).toEqual([[], []]);
    expect(await listIds(`/v1/objects/constructor?constructor=${account}`)).toEqual([created.id]);
    expect(await listIds(`/v1/objects/constructor?constructor[-equal]=${account}`)).toEqual([peer.id]);

    const contact = ok<{ id: string }>(await post('/v1/contacts', { fields: { $name: { firstName: 'Ada' } } })).id;
    const task = ok<Envelope>(
      await post('/v1/tasks', {
        fields: { $title: 'T', $status: 'TODO' },
        relationships: { $assignedTo: suite.ws.memberId, constructor: account, hasOwnProperty: [contact] },
      }),
    );
    expect([linksAt(task, 'constructor'), linksAt(task, 'hasOwnProperty')]).toEqual([[account], [contact]]);
    expect(linksAt(ok<Envelope>(await get(`/v1/accounts/${account}`)), 'toString')).toEqual([task.id]);
    expect(linksAt(ok<Envelope>(await get(`/v1/contacts/${contact}`)), 'valueOf')).toEqual([task.id]);
    expect(await listIds(`/v1/tasks?hasOwnProperty=${contact}`)).toEqual([task.id]);
    const emptied = ok<Envelope>(
      await post(`/v1/tasks/${task.id}`, { relationships: { hasOwnProperty: { remove: contact } } }),
    );
    expect(linksAt(emptied, 'hasOwnProperty')).toEqual([]);
    expect(await listIds(`/v1/tasks?hasOwnProperty=${contact}`)).toEqual([]);
  });

  it('refuses __proto__ as a key wherever a body names one, and unknown prototype-named filters', async () => {
    expectError(
      await post('/v1/notes', withProto('{"fields":{"$title":"x","__proto__":1}}')),
      400,
      'unknown_field',
      'fields.__proto__',
    );
    expectError(
      await post('/v1/notes', withProto('{"fields":{"$title":"x","__proto__":{"$title":"y"}}}')),
      400,
      'unknown_field',
      'fields.__proto__',
    );
    expectError(
      await post('/v1/notes', withProto('{"fields":{"$title":"x"},"__proto__":{}}')),
      400,
      'unknown_field',
      '__proto__',
    );
    expectError(
      await post('/v1/notes', withProto('{"fields":{"$title":"x"},"relationships":{"__proto__":"acc_x"}}')),
      400,
      'unknown_relationship',
      'relationships.__proto__',
    );
    expectError(
      await post(
        '/v1/accounts',
        withProto('{"fields":{"$name":"x","$primaryAddress":{"city":"Oslo","__proto__":"x"}}}'),
      ),
      400,
      'unknown_field',
      'fields.$primaryAddress.__proto__',
    );
    const gadget = ok<{ id: string }>(await post('/v1/objects/constructor/values', { fields: {} })).id;
    for (const operation of ['__proto__', 'constructor', 'toString']) {
      expectError(
        await post(
          `/v1/objects/constructor/values/${gadget}`,
          withProto(`{"relationships":{"hasOwnProperty":{"${operation}":[]}}}`),
        ),
        400,
        'invalid_operation',
        `relationships.hasOwnProperty.${operation}`,
      );
    }
    expectError(
      await defineType(
        withProto('{"slug":"proto","label":"P","fields":{"__proto__":{"label":"P","valueType":"TEXT"}}}'),
      ),
      422,
      'invalid_value',
      'fields.__proto__.key',
    );
    expectError(
      await defineType(
        withProto(
          '{"slug":"proto","label":"P","relationships":{"__proto__":{"label":"P","cardinality":"HAS_ONE","objectType":"account"}}}',
        ),
      ),
      422,
      'invalid_value',
      'relationships.__proto__.key',
    );
    expectError(await get('/v1/objects/proto/definitions'), 404, 'not_found');
    // In a query, such keys are filters: unknown where the type does not define them.
    for (const name of ['constructor', 'toString[equal]', 'valueOf[-equal]', 'hasOwnProperty']) {
      expectError(await get(`/v1/opportunities?${encodeURIComponent(name)}=1`), 400, 'unknown_field', name);
    }
  });

  it('refuses every inherited name in a meeting update, at each member map, and changes nothing', async () => {
    const transcript = await uploadFile(suite.t.http, suite.ws.key);
    const meeting = ok<{ id: string }>(
      await post('/v1/meetings', {
        fields: { $title: 'M', $startDate: '2025-01-02T09:00:00Z', $endDate: '2025-01-02T10:00:00Z' },
        relationships: { $transcript: transcript },
      }),
    ).id;
    const before = ok(await get(`/v1/meetings/${meeting}`));
    const update = (json: string) => post(`/v1/meetings/${meeting}`, withProto(json));
    expectError(
      await update('{"fields":{"$privacySetting":"METADATA","hasOwnProperty":1}}'),
      400,
      'unknown_field',
      'fields.hasOwnProperty',
    );
    for (const name of INHERITED_NAMES) {
      expectError(
        await update(`{"fields":{"$privacySetting":"METADATA","${name}":"x"}}`),
        400,
        'unknown_field',
        `fields.${name}`,
      );
      expectError(
        await update(`{"relationships":{"${name}":{"replace":"${transcript}"}}}`),
        400,
        'unknown_relationship',
        `relationships.${name}`,
      );
      expectError(
        await update(
          `{"fields":{"$privacySetting":"METADATA"},"relationships":{"$transcript":{"replace":"${transcript}","${name}":1}}}`,
        ),
        400,
        'invalid_operation',
        `relationships.$transcript.${name}`,
      );
    }
    expect(ok(await get(`/v1/meetings/${meeting}`))).toEqual(before);
  });

  it('refuses every inherited name in list bodies, at each member map, and changes nothing', async () => {
    const account = ok<{ id: string }>(await post('/v1/accounts', { fields: { $name: 'Listed' } })).id;
    const list = ok<{ id: string }>(
      await post('/v1/lists', {
        fields: { $name: 'L', $objectType: 'account' },
        relationships: { $accounts: [account] },
      }),
    ).id;
    const state = async () => ({
      lists: ok<{ totalCount: number }>(await get('/v1/lists')).totalCount,
      list: ok(await get(`/v1/lists/${list}`)),
      members: await listIds(`/v1/lists/${list}/accounts`),
    });
    const before = await state();
    const create = (json: string) => post('/v1/lists', withProto(json));
    const update = (json: string) => post(`/v1/lists/${list}`, withProto(json));
    const fields = '"fields":{"$name":"New","$objectType":"account"}';
    for (const name of INHERITED_NAMES) {
      expectError(
        await create(`{"fields":{"$name":"New","$objectType":"account","${name}":1}}`),
        400,
        'unknown_field',
        `fields.${name}`,
      );
      expectError(
        await create(`{${fields},"relationships":{"${name}":["${account}"]}}`),
        400,
        'unknown_relationship',
        `relationships.${name}`,
      );
      expectError(
        await create(`{${fields},"relationships":{"$accounts":{"${name}":["${account}"]}}}`),
        400,
        'invalid_type',
        'relationships.$accounts',
      );
      expectError(await update(`{"fields":{"$name":"New","${name}":1}}`), 400, 'unknown_field', `fields.${name}`);
      expectError(
        await update(`{"relationships":{"${name}":{"add":"${account}"}}}`),
        400,
        'unknown_relationship',
        `relationships.${name}`,
      );
      expectError(
        await update(`{"fields":{"$name":"New"},"relationships":{"$accounts":{"remove":"${account}","${name}":1}}}`),
        400,
        'invalid_operation',
        `relationships.$accounts.${name}`,
      );
    }
    expect(await state()).toEqual(before);
  });

  it('takes the other names a JavaScript object carries (prototype, isPrototypeOf, …) as keys too', async () => {
    const relic = ok<{ fieldDefinitions: Record<string, unknown>; relationshipDefinitions: Record<string, unknown> }>(
      await defineType({
        slug: 'relic',
        label: 'Relic',
        fields: {
          prototype: { label: 'Prototype', valueType: 'TEXT' },
          toLocaleString: { label: 'Locale', valueType: 'NUMBER' },
          propertyIsEnumerable: { label: 'Listed', valueType: 'CHECKBOX' },
        },
        relationships: {
          isPrototypeOf: { label: 'Accounts', cardinality: 'HAS_MANY', objectType: 'account', inverseKey: 'prototype' },
        },
      }),
    );
    expect(Object.keys(relic.fieldDefinitions).sort()).toEqual(['propertyIsEnumerable', 'prototype', 'toLocaleString']);
    expect(Object.keys(relic.relationshipDefinitions)).toEqual(['isPrototypeOf']);
    const account = ok<{ id: string }>(await post('/v1/accounts', { fields: { $name: 'Old' } })).id;
    const record = ok<Envelope>(
      await post('/v1/objects/relic/values', {
        fields: { prototype: 'P1', toLocaleString: 2, propertyIsEnumerable: true },
        relationships: { isPrototypeOf: [account] },
      }),
    );
    expect(['prototype', 'toLocaleString', 'propertyIsEnumerable'].map((key) => valueAt(record, key))).toEqual([
      'P1',
      2,
      true,
    ]);
    expect(linksAt(record, 'isPrototypeOf')).toEqual([account]);
    expect(linksAt(ok<Envelope>(await get(`/v1/accounts/${account}`)), 'prototype')).toEqual([record.id]);
    expect(await listIds('/v1/objects/relic?prototype=P1&propertyIsEnumerable=true')).toEqual([record.id]);
  });

  it('refuses prototype-named members of a type definition body as unknown, never a 500', async () => {
    const field = { label: 'F', valueType: 'TEXT' };
    for (const [json, param] of [
      ['{"slug":"odd","label":"O","constructor":{}}', 'constructor'],
      ['{"slug":"odd","label":"O","prototype":1}', 'prototype'],
      ['{"slug":"odd","label":"O","__proto__":{"slug":"x"}}', '__proto__'],
      [
        `{"slug":"odd","label":"O","fields":{"f":${JSON.stringify({ ...field, constructor: 'x' })}}}`,
        'fields.f.constructor',
      ],
      [
        '{"slug":"odd","label":"O","fields":{"f":{"label":"F","valueType":"SINGLE_SELECT","typeConfiguration":{"options":[{"label":"A","constructor":"B"}]}}}}',
        'fields.f.typeConfiguration.options.0.constructor',
      ],
      [
        '{"slug":"odd","label":"O","relationships":{"r":{"label":"R","cardinality":"HAS_ONE","objectType":"account","__proto__":{}}}}',
        'relationships.r.__proto__',
      ],
    ]) {
      expectError(await defineType(withProto(json)), 400, 'unknown_field', param);
    }
    // Inside a value that is no body, such a key is the value's own: an object where text belongs.
    expectError(await defineType(withProto('{"slug":{"constructor":1},"label":"O"}')), 400, 'invalid_type', 'slug');
    expectError(
      await defineType({ slug: 'odd', label: 'O', fields: { f: { ...field, label: { constructor: {} } } } }),
      400,
      'invalid_type',
      'fields.f.label',
    );
    expectError(await get('/v1/objects/odd/definitions'), 404, 'not_found');
  });

  it('refuses a definition entry that is not an object at once, whatever its length', async () => {
    expectError(
      await defineType({ slug: 'strung', label: 'S', fields: { constructor: 'x'.repeat(300_000) } }),
      400,
      'invalid_type',
      'fields.constructor',
    );
    expectError(
      await defineType({ slug: 'strung', label: 'S', relationships: { toString: 'x'.repeat(300_000) } }),
      400,
      'invalid_type',
      'relationships.toString',
    );
    expectError(
      await defineType({ slug: 'strung', label: 'S', fields: { valueOf: ['TEXT'] } }),
      400,
      'invalid_type',
      'fields.valueOf',
    );
    // Whatever its length: a string 64 times as long is refused in about the same time (the round
    // trip's fixed cost outweighs carrying and parsing the longer body); reading it as an object,
    // one key per character, takes several times as long. Bodies are serialized beforehand.
    const bodyWith = (length: number) =>
      JSON.stringify({ slug: 'strung', label: 'S', fields: { constructor: 'x'.repeat(length) } });
    const refuse = async (json: string) =>
      expectError(await defineType(json), 400, 'invalid_type', 'fields.constructor');
    expect(await costGrowth(refuse, bodyWith(2_500), bodyWith(160_000))).toBeLessThan(4);
  });
});

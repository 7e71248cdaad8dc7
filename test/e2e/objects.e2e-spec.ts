import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createKey, createWorkspace } from '../support/factories';
import { adminHeaders } from '../support/test-app';

/** One field of every value type, with a good write value, its read-back, and a refused value. */
const VALUE_TYPE_CASES: {
  key: string;
  valueType: string;
  typeConfiguration?: Record<string, unknown>;
  good: unknown;
  read: unknown;
  bad: unknown;
  badStatus: number;
  badCode: string;
}[] = [
  {
    key: 'street',
    valueType: 'ADDRESS',
    good: { city: 'Oslo', country: 'no' },
    read: { city: 'Oslo', country: 'NO' },
    bad: { zip: '1' },
    badStatus: 400,
    badCode: 'unknown_field',
  },
  { key: 'active', valueType: 'CHECKBOX', good: true, read: true, bad: 'yes', badStatus: 400, badCode: 'invalid_type' },
  {
    key: 'budget',
    valueType: 'CURRENCY',
    typeConfiguration: { currency: 'EUR' },
    good: 12.5,
    read: 12.5,
    bad: '12',
    badStatus: 400,
    badCode: 'invalid_type',
  },
  {
    key: 'startsAt',
    valueType: 'DATETIME',
    good: '2026-01-02T03:04:05Z',
    read: '2026-01-02T03:04:05.000Z',
    bad: '2026-01-02',
    badStatus: 422,
    badCode: 'invalid_value',
  },
  {
    key: 'contactEmail',
    valueType: 'EMAIL',
    good: 'Ada@Example.com',
    read: 'ada@example.com',
    bad: 'not-an-email',
    badStatus: 422,
    badCode: 'invalid_value',
  },
  {
    key: 'owner',
    valueType: 'FULL_NAME',
    good: { firstName: 'Ada' },
    read: { firstName: 'Ada' },
    bad: { middle: 'x' },
    badStatus: 400,
    badCode: 'unknown_field',
  },
  {
    key: 'brief',
    valueType: 'MARKDOWN',
    good: '# Brief',
    read: '# Brief',
    bad: 7,
    badStatus: 400,
    badCode: 'invalid_type',
  },
  {
    key: 'tags',
    valueType: 'MULTI_SELECT',
    typeConfiguration: {
      options: [
        { id: 'red', label: 'Red' },
        { id: 'blue', label: 'Blue' },
      ],
    },
    good: ['Red', 'blue'],
    read: ['red', 'blue'],
    bad: ['green'],
    badStatus: 400,
    badCode: 'invalid_type',
  },
  { key: 'score', valueType: 'NUMBER', good: 42, read: 42, bad: 'many', badStatus: 400, badCode: 'invalid_type' },
  {
    key: 'phase',
    valueType: 'SINGLE_SELECT',
    typeConfiguration: {
      options: [
        { id: 'p1', label: 'Plan' },
        { id: 'p2', label: 'Build' },
      ],
    },
    good: 'Build',
    read: 'p2',
    bad: 'Ship',
    badStatus: 400,
    badCode: 'invalid_type',
  },
  {
    key: 'handle',
    valueType: 'SOCIAL_HANDLE',
    typeConfiguration: { handleService: 'TWITTER' },
    good: '@ada',
    read: '@ada',
    bad: false,
    badStatus: 400,
    badCode: 'invalid_type',
  },
  {
    key: 'phone',
    valueType: 'TELEPHONE',
    good: '+1 (415) 555-0100',
    read: '+14155550100',
    bad: '12',
    badStatus: 422,
    badCode: 'invalid_value',
  },
  {
    key: 'name',
    valueType: 'TEXT',
    good: 'Apollo',
    read: 'Apollo',
    bad: ['x'],
    badStatus: 400,
    badCode: 'invalid_type',
  },
  {
    key: 'site',
    valueType: 'URL',
    good: 'https://example.com/a',
    read: 'https://example.com/a',
    bad: 'ftp:/nope',
    badStatus: 422,
    badCode: 'invalid_value',
  },
];

describe('custom object types and records', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  const defineType = (workspaceId: string, body: Record<string, unknown>) =>
    suite.t.http.post(`/admin/v1/workspaces/${workspaceId}/object-types`).set(adminHeaders()).send(body);

  beforeAll(async () => {
    const milestone = await defineType(suite.ws.workspaceId, {
      slug: 'milestone',
      label: 'Milestone',
      fields: { title: { label: 'Title', valueType: 'TEXT', required: true } },
    });
    expect(milestone.status).toBe(200);
    const project = await defineType(suite.ws.workspaceId, {
      slug: 'project',
      label: 'Project',
      fields: Object.fromEntries(
        VALUE_TYPE_CASES.map(({ key, valueType, typeConfiguration }) => [
          key,
          { label: key, valueType, typeConfiguration },
        ]),
      ),
      relationships: {
        client: { label: 'Client', cardinality: 'HAS_ONE', objectType: 'account' },
        milestones: { label: 'Milestones', cardinality: 'HAS_MANY', objectType: 'milestone' },
        parent: { label: 'Parent', cardinality: 'HAS_ONE', objectType: 'project', inverseKey: 'children' },
      },
    });
    expect(project.status).toBe(200);
  });

  it('lists the custom types (not paged) and serves their definitions', async () => {
    const types = await get('/v1/objects');
    expect(types.status).toBe(200);
    suite.openapi.assert(types);
    expect(types.body).toEqual({
      data: [
        { label: 'Milestone', objectType: 'milestone' },
        { label: 'Project', objectType: 'project' },
      ],
    });
    const definitions = await get('/v1/objects/project/definitions');
    suite.openapi.assert(definitions);
    expect(Object.keys(definitions.body.fieldDefinitions)).toHaveLength(VALUE_TYPE_CASES.length);
    expect(definitions.body.fieldDefinitions.phase.typeConfiguration.options).toEqual([
      { id: 'p1', label: 'Plan', description: null },
      { id: 'p2', label: 'Build', description: null },
    ]);
    expect(definitions.body.relationshipDefinitions).toMatchObject({
      client: { cardinality: 'HAS_ONE', objectType: 'account' },
      milestones: { cardinality: 'HAS_MANY', objectType: 'milestone' },
      children: { cardinality: 'HAS_MANY', objectType: 'project', readOnly: true },
    });
    expect((await get('/v1/objects', suite.other.key)).body).toEqual({ data: [] });
  });

  it('writes and reads every value type, and refuses a bad value of each', async () => {
    const fields = Object.fromEntries(VALUE_TYPE_CASES.map(({ key, good }) => [key, good]));
    const created = await post('/v1/objects/project/values', { fields });
    expect(created.status).toBe(200);
    suite.openapi.assert(created);
    expect(created.body.id).toMatch(/^rec_[0-9A-Z]{26}$/);
    for (const { key, valueType, read } of VALUE_TYPE_CASES) {
      expect({ key, ...created.body.fields[key] }).toEqual({ key, value: read, valueType });
    }
    for (const { key, bad, badStatus, badCode } of VALUE_TYPE_CASES) {
      const refused = await post(`/v1/objects/project/values/${created.body.id}`, { fields: { [key]: bad } });
      expectError(refused, badStatus, badCode);
      expect(refused.body.error.param).toMatch(new RegExp(`^fields\\.${key}`));
    }
    const cleared = await post(`/v1/objects/project/values/${created.body.id}`, { fields: { score: null } });
    expect(cleared.body.fields.score).toEqual({ value: null, valueType: 'NUMBER' });
    expect(cleared.body.fields.name.value).toBe('Apollo');
  });

  it('links to an account and to another custom type, readable from the other side', async () => {
    const account = (await post('/v1/accounts', { fields: { $name: 'Client' } })).body.id;
    const m1 = (await post('/v1/objects/milestone/values', { fields: { title: 'M1' } })).body.id;
    const m2 = (await post('/v1/objects/milestone/values', { fields: { title: 'M2' } })).body.id;
    const parent = (await post('/v1/objects/project/values', { fields: { name: 'Parent' } })).body.id;
    const child = await post('/v1/objects/project/values', {
      fields: { name: 'Child' },
      relationships: { client: account, milestones: [m1], parent },
    });
    expect(child.status).toBe(200);
    const updated = await post(`/v1/objects/project/values/${child.body.id}`, {
      relationships: { milestones: { add: m2, remove: m1 } },
    });
    expect(updated.body.relationships).toMatchObject({
      client: { cardinality: 'has_one', objectType: 'account', values: [account] },
      milestones: { cardinality: 'has_many', objectType: 'milestone', values: [m2] },
      parent: { cardinality: 'has_one', objectType: 'project', values: [parent] },
    });
    expect((await get(`/v1/accounts/${account}`)).body.relationships.project_client.values).toEqual([child.body.id]);
    expect((await get(`/v1/objects/milestone/values/${m2}`)).body.relationships.project_milestones.values).toEqual([
      child.body.id,
    ]);
    expect((await get(`/v1/objects/project/values/${parent}`)).body.relationships.children.values).toEqual([
      child.body.id,
    ]);
    const replaced = await post(`/v1/objects/project/values/${child.body.id}`, {
      relationships: { milestones: { replace: [m1, m2] } },
    });
    // Values are in the order they were linked: m2 stayed linked, m1 was linked again by replace.
    expect(replaced.body.relationships.milestones.values).toEqual([m2, m1]);
    expectError(
      await post('/v1/objects/project/values', {
        fields: {},
        relationships: { client: [account, `${account.slice(0, -1)}${account.endsWith('0') ? '1' : '0'}`] },
      }),
      422,
      'relationship_entity_missing',
    );
    expectError(
      await post('/v1/objects/project/values', { fields: {}, relationships: { milestones: [parent] } }),
      422,
      'relationship_entity_missing',
      'relationships.milestones',
    );
  });

  it('filters per type through $field and field keys', async () => {
    const fresh = await createWorkspace(suite.t.http);
    await defineType(fresh.workspaceId, {
      slug: 'deal',
      label: 'Deal',
      fields: {
        title: { label: 'Title', valueType: 'TEXT' },
        size: { label: 'Size', valueType: 'NUMBER' },
        tier: {
          label: 'Tier',
          valueType: 'SINGLE_SELECT',
          typeConfiguration: {
            options: [
              { id: 'gold', label: 'Gold' },
              { id: 'silver', label: 'Silver' },
            ],
          },
        },
        regions: {
          label: 'Regions',
          valueType: 'SINGLE_SELECT',
          typeConfiguration: {
            multipleValues: true,
            options: [
              { id: 'eu', label: 'Europe' },
              { id: 'us', label: 'Americas' },
            ],
          },
        },
        ratio: { label: 'Ratio', valueType: 'NUMBER' },
      },
    });
    const ids: string[] = [];
    for (const [title, size, tier] of [
      ['Alpha', 10, 'gold'],
      ['Alpine', 50, 'silver'],
      ['Beta', 90, 'gold'],
    ] as const) {
      ids.push((await post('/v1/objects/deal/values', { fields: { title, size, tier } }, fresh.key)).body.id);
    }
    const query = async (q: string) => {
      const response = await get(`/v1/objects/deal?${q}`, fresh.key);
      expect(response.status).toBe(200);
      suite.openapi.assert(response);
      return { ids: response.body.data.map((r: { id: string }) => r.id), total: response.body.totalCount };
    };
    expect(await query('title[startsWith]=Alp')).toEqual({ ids: [ids[1], ids[0]], total: 2 });
    expect(await query('size[greaterThan]=20')).toEqual({ ids: [ids[2], ids[1]], total: 2 });
    expect(await query('tier=Gold')).toEqual({ ids: [ids[2], ids[0]], total: 2 });
    expect(await query('tier[equal]=gold&size[lessThan]=50')).toEqual({ ids: [ids[0]], total: 1 });
    expect(await query('title[-startsWith]=Alp&limit=1')).toEqual({ ids: [ids[2]], total: 1 });
    // Long values: the value index keeps 512 characters, the stored value decides.
    const long = `${'a'.repeat(600)}`;
    const longId = (await post('/v1/objects/deal/values', { fields: { title: long, size: 1e6 } }, fresh.key)).body.id;
    expect(await query(`title[startsWith]=${'a'.repeat(500)}`)).toEqual({ ids: [longId], total: 1 });
    expect(await query(`title[startsWith]=${'a'.repeat(599)}`)).toEqual({ ids: [longId], total: 1 });
    expect(await query(`title[startsWith]=${'a'.repeat(599)}b`)).toEqual({ ids: [], total: 0 });
    expect(await query('size[greaterThanOrEqual]=1000000')).toEqual({ ids: [longId], total: 1 });
    // An update re-indexes: the old value no longer matches, the new one does.
    await post(`/v1/objects/deal/values/${longId}`, { fields: { title: 'Zed', size: 5 } }, fresh.key);
    expect(await query(`title[startsWith]=aaa`)).toEqual({ ids: [], total: 0 });
    expect(await query('title[startsWith]=Ze&size[lessThan]=6')).toEqual({ ids: [longId], total: 1 });
    // A multi-valued select matches any element, by id or label; numbers compare as numbers.
    const regional = (
      await post(
        '/v1/objects/deal/values',
        { fields: { title: 'Gamma', regions: ['eu', 'Americas'], ratio: 0.3 } },
        fresh.key,
      )
    ).body.id;
    expect(await query('regions=Europe')).toEqual({ ids: [regional], total: 1 });
    expect(await query('regions[equal]=us')).toEqual({ ids: [regional], total: 1 });
    expect(await query('ratio[lessThan]=0.30000000000000001')).toEqual({ ids: [], total: 0 });
    expect(await query('ratio[lessThanOrEqual]=0.30000000000000001')).toEqual({ ids: [regional], total: 1 });
    expectError(await get('/v1/objects/deal?nope=1', fresh.key), 400, 'unknown_field');
    expectError(await get('/v1/objects/deal?size[startsWith]=1', fresh.key), 400, 'invalid_filter');
  });

  it('enforces unique fields with 409 duplicate_value, also under concurrency', async () => {
    const fresh = await createWorkspace(suite.t.http);
    await defineType(fresh.workspaceId, {
      slug: 'badge',
      label: 'Badge',
      fields: {
        code: { label: 'Code', valueType: 'TEXT', unique: true },
        holder: { label: 'Holder', valueType: 'FULL_NAME', unique: true },
        aliases: { label: 'Aliases', valueType: 'TEXT', unique: true, typeConfiguration: { multipleValues: true } },
      },
    });
    // Objects are unique by equality, not containment; multiple values per element.
    expect(
      (
        await post(
          '/v1/objects/badge/values',
          { fields: { holder: { firstName: 'Ada', lastName: 'L' }, aliases: ['x', 'y'] } },
          fresh.key,
        )
      ).status,
    ).toBe(200);
    expect(
      (await post('/v1/objects/badge/values', { fields: { holder: { firstName: 'Ada' }, aliases: ['z'] } }, fresh.key))
        .status,
    ).toBe(200);
    expectError(
      await post('/v1/objects/badge/values', { fields: { holder: { firstName: 'Ada' } } }, fresh.key),
      409,
      'duplicate_value',
      'fields.holder',
    );
    expectError(
      await post('/v1/objects/badge/values', { fields: { aliases: ['q', 'y'] } }, fresh.key),
      409,
      'duplicate_value',
      'fields.aliases',
    );
    expect((await post('/v1/objects/badge/values', { fields: { code: 'A1' } }, fresh.key)).status).toBe(200);
    expectError(
      await post('/v1/objects/badge/values', { fields: { code: 'A1' } }, fresh.key),
      409,
      'duplicate_value',
      'fields.code',
    );
    const racers = await Promise.all(
      Array.from({ length: 6 }, () => post('/v1/objects/badge/values', { fields: { code: 'RACE' } }, fresh.key)),
    );
    expect(racers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const other = (await post('/v1/objects/badge/values', { fields: { code: 'B2' } }, fresh.key)).body.id;
    expectError(
      await post(`/v1/objects/badge/values/${other}`, { fields: { code: 'A1' } }, fresh.key),
      409,
      'duplicate_value',
    );
    expect((await post(`/v1/objects/badge/values/${other}`, { fields: { code: 'B2' } }, fresh.key)).status).toBe(200);
  });

  it('refuses text PostgreSQL cannot store (NUL) with a 4xx, never a 500', async () => {
    expectError(
      await post('/v1/objects/milestone/values', { fields: { title: 'x' }, externalId: 'a\u0000b' }),
      422,
      'invalid_value',
      'externalId',
    );
    expectError(
      await post('/v1/objects/milestone/values', { fields: { title: 'a\u0000b' } }),
      422,
      'invalid_value',
      'fields.title',
    );
    expectError(await get('/v1/objects/project?client=%00'), 400, 'invalid_filter', 'client');
    expectError(
      await post('/v1/lists', { fields: { $name: 'a\u0000', $objectType: 'account' } }),
      422,
      'invalid_value',
      'fields.$name',
    );
  });

  it('answers 404 for unknown slugs, system slugs, other types and other workspaces', async () => {
    const record = (await post('/v1/objects/milestone/values', { fields: { title: 'x' } })).body.id;
    expectError(await get('/v1/objects/nope/definitions'), 404, 'not_found');
    expectError(await get('/v1/objects/note'), 404, 'not_found');
    expectError(await post('/v1/objects/task/values', { fields: {} }), 404, 'not_found');
    expectError(await get(`/v1/objects/project/values/${record}`), 404, 'not_found');
    expectError(await get(`/v1/objects/milestone/values/${record}`, suite.other.key), 404, 'not_found');
    expectError(await get('/v1/objects/milestone/values/rec_bad'), 404, 'not_found');
    expectError(await post('/v1/objects/milestone/values', { fields: {} }), 422, 'parameter_missing', 'fields.title');
  });

  it('requires the objects scopes', async () => {
    const reader = await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['objects:read']);
    expectError(
      await post('/v1/objects/milestone/values', { fields: { title: 'x' } }, reader.key),
      403,
      'insufficient_scope',
    );
    const writer = await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['objects:create']);
    const created = await post('/v1/objects/milestone/values', { fields: { title: 'x' } }, writer.key);
    expect(created.status).toBe(200);
    expectError(await get('/v1/objects', writer.key), 403, 'insufficient_scope');
    expectError(
      await post(`/v1/objects/milestone/values/${created.body.id}`, { fields: { title: 'y' } }, writer.key),
      403,
      'insufficient_scope',
    );
  });

  it('validates type definitions in the operator API', async () => {
    const fresh = await createWorkspace(suite.t.http);
    expectError(await defineType(fresh.workspaceId, { slug: 'Bad Slug', label: 'x' }), 422, 'invalid_value', 'slug');
    expectError(await defineType(fresh.workspaceId, { slug: 'account', label: 'x' }), 409, 'duplicate_slug', 'slug');
    expect((await defineType(fresh.workspaceId, { slug: 'thing', label: 'Thing' })).status).toBe(200);
    expectError(await defineType(fresh.workspaceId, { slug: 'thing', label: 'Again' }), 409, 'duplicate_slug', 'slug');
    expectError(
      await defineType(fresh.workspaceId, {
        slug: 'gadget',
        label: 'G',
        fields: { size: { label: 'Size', valueType: 'HUGE' } },
      }),
      400,
      'invalid_type',
      'fields.size.valueType',
    );
    expectError(
      await defineType(fresh.workspaceId, {
        slug: 'gadget',
        label: 'G',
        fields: { pick: { label: 'Pick', valueType: 'SINGLE_SELECT' } },
      }),
      422,
      'parameter_missing',
      'fields.pick.typeConfiguration.options',
    );
    expectError(
      await defineType(fresh.workspaceId, {
        slug: 'gadget',
        label: 'G',
        relationships: { owner: { label: 'O', cardinality: 'HAS_ONE', objectType: 'nothing' } },
      }),
      422,
      'invalid_value',
      'relationships.owner.objectType',
    );
    // Nothing of a refused definition remains.
    expect(
      (await get('/v1/objects', fresh.key)).body.data.map((type: { objectType: string }) => type.objectType),
    ).toEqual(['thing']);
  });
});

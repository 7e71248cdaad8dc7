import { DataSource } from 'typeorm';
import { OLDEST_BY_URL_HOST } from '../../src/records/records.repository';
import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createKey, createMember, createWorkspace } from '../support/factories';
import { adminHeaders, v1Headers } from '../support/test-app';
import { uploadFile } from '../support/transcripts';

const HOUR = 3_600_000;
const past = (hoursAgo: number) => new Date(Date.now() - hoursAgo * HOUR).toISOString();

describe('meetings', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  const meeting = (fields: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
    fields: { $title: 'Weekly', $startDate: past(3), $endDate: past(2), ...fields },
    ...extra,
  });

  beforeAll(async () => {
    const topic = await suite.t.http
      .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types/meeting/fields`)
      .set(adminHeaders())
      .send({ key: 'topic', label: 'Topic', valueType: 'TEXT' });
    expect(topic.status).toBe(200);
  });

  it('creates a past meeting with every field and a transcript', async () => {
    const file = await uploadFile(suite.t.http, suite.ws.key);
    const response = await post(
      '/v1/meetings',
      meeting(
        {
          $attendeeEmails: ['A@Example.com', 'b@example.com'],
          $description: 'Agenda',
          $meetingUrl: 'https://meet.example.com/x',
          $organizerEmail: 'boss@example.com',
          topic: 'pricing',
        },
        { relationships: { $transcript: file } },
      ),
    );
    expect(response.status).toBe(200);
    suite.openapi.assert(response);
    expect(response.body).toMatchObject({
      id: expect.stringMatching(/^mtg_[0-9A-Z]{26}$/),
      objectType: 'meeting',
      accessLevel: 'FULL',
      fields: {
        $title: { value: 'Weekly', valueType: 'TEXT' },
        $attendeeEmails: { value: ['a@example.com', 'b@example.com'], valueType: 'EMAIL' },
        $privacySetting: { value: 'FULL', valueType: 'SINGLE_SELECT' },
        topic: { value: 'pricing', valueType: 'TEXT' },
      },
      relationships: {
        $transcript: { cardinality: 'has_one', objectType: 'file', values: [file] },
        $createdBy: { cardinality: 'has_one', objectType: 'member', values: [suite.ws.memberId] },
        $contact: { cardinality: 'has_many', objectType: 'contact', values: [] },
      },
    });
    const read = await get(`/v1/meetings/${response.body.id}`);
    suite.openapi.assert(read);
    expect(read.body).toEqual(response.body);
  });

  it('refuses meetings that are not in the past, or that end before they start', async () => {
    const future = new Date(Date.now() + HOUR).toISOString();
    expectError(
      await post('/v1/meetings', meeting({ $startDate: future, $endDate: future })),
      422,
      'invalid_value',
      'fields.$startDate',
    );
    expectError(await post('/v1/meetings', meeting({ $endDate: future })), 422, 'invalid_value', 'fields.$endDate');
    expectError(
      await post('/v1/meetings', meeting({ $startDate: past(1), $endDate: past(2) })),
      422,
      'invalid_value',
      'fields.$endDate',
    );
    expectError(
      await post('/v1/meetings', meeting({ $startDate: 'yesterday' })),
      422,
      'invalid_value',
      'fields.$startDate',
    );
    for (const key of ['$title', '$startDate', '$endDate']) {
      expectError(await post('/v1/meetings', meeting({ [key]: undefined })), 422, 'parameter_missing', `fields.${key}`);
    }
    expectError(
      await post('/v1/meetings', meeting({}, { autoCreateRecords: 'yes' })),
      400,
      'invalid_type',
      'autoCreateRecords',
    );
    const listed = await get('/v1/meetings?limit=25');
    expect(
      listed.body.data.every((m: { fields: { $title: { value: string } } }) => m.fields.$title.value === 'Weekly'),
    ).toBe(true);
  });

  it('writes only $privacySetting and $transcript.replace on update', async () => {
    const created = (await post('/v1/meetings', meeting())).body.id;
    const changed = await post(`/v1/meetings/${created}`, { fields: { $privacySetting: 'METADATA' } });
    expect(changed.status).toBe(200);
    suite.openapi.assert(changed);
    expect(changed.body.fields.$privacySetting.value).toBe('METADATA');
    expectError(
      await post(`/v1/meetings/${created}`, { fields: { $title: 'x' } }),
      422,
      'read_only_field',
      'fields.$title',
    );
    expectError(
      await post(`/v1/meetings/${created}`, { fields: { topic: 'x' } }),
      422,
      'read_only_field',
      'fields.topic',
    );
    expectError(
      await post(`/v1/meetings/${created}`, { fields: { $nope: 'x' } }),
      400,
      'unknown_field',
      'fields.$nope',
    );
    expectError(await post(`/v1/meetings/${created}`, { fields: { $privacySetting: 'SECRET' } }), 400, 'invalid_type');
    for (const operation of [{ add: 'fil_x' }, { remove: 'fil_x' }, { replace: null }, { replace: ['a', 'b'] }, {}]) {
      expectError(
        await post(`/v1/meetings/${created}`, { relationships: { $transcript: operation } }),
        422,
        'read_only_field',
        'relationships.$transcript',
      );
    }
    expectError(
      await post(`/v1/meetings/${created}`, { relationships: { $contact: { replace: 'con_x' } } }),
      422,
      'read_only_field',
    );
    // A name that is no operation at all is one the route does not allow, as on every record.
    expectError(
      await post(`/v1/meetings/${created}`, { relationships: { $transcript: { replace: 'fil_x', set: 'fil_x' } } }),
      400,
      'invalid_operation',
      'relationships.$transcript.set',
    );
    expectError(
      await post(`/v1/meetings/${created}`, { relationships: { $nope: { replace: 'x' } } }),
      400,
      'unknown_relationship',
    );
    const file = await uploadFile(suite.t.http, suite.ws.key);
    const replaced = await post(`/v1/meetings/${created}`, { relationships: { $transcript: { replace: file } } });
    expect(replaced.body.relationships.$transcript.values).toEqual([file]);
  });

  it('reads null for an optional body member as absent, and a null $privacySetting as the default FULL', async () => {
    const createBody = meeting(
      { $privacySetting: null },
      { autoCreateRecords: null, relationships: { $transcript: null } },
    );
    expect(suite.openapi.refusesRequest('POST', '/v1/meetings', meeting({}, { autoCreateRecords: null }))).toBe(false);
    const created = await post('/v1/meetings', createBody);
    expect(created.status).toBe(200);
    expect(created.body.fields.$privacySetting.value).toBe('FULL');
    expect(created.body.relationships.$transcript.values).toEqual([]);
    const id = created.body.id;
    expect(
      (await post(`/v1/meetings/${id}`, { fields: { $privacySetting: 'METADATA' } })).body.fields.$privacySetting.value,
    ).toBe('METADATA');
    for (const body of [
      { fields: null },
      { relationships: null },
      { fields: null, relationships: null },
      { fields: {}, relationships: {} },
    ]) {
      expect(suite.openapi.refusesRequest('POST', `/v1/meetings/${id}`, body)).toBe(false);
      const unchanged = await post(`/v1/meetings/${id}`, body);
      expect({ body, status: unchanged.status, privacy: unchanged.body.fields?.$privacySetting.value }).toEqual({
        body,
        status: 200,
        privacy: 'METADATA',
      });
    }
    expect(suite.openapi.refusesRequest('POST', `/v1/meetings/${id}`, { fields: { $privacySetting: null } })).toBe(
      false,
    );
    const cleared = await post(`/v1/meetings/${id}`, { fields: { $privacySetting: null } });
    expect(cleared.status).toBe(200);
    suite.openapi.assert(cleared);
    expect(cleared.body.fields.$privacySetting.value).toBe('FULL');
    expectError(
      await post(`/v1/meetings/${id}`, { relationships: { $transcript: null } }),
      422,
      'read_only_field',
      'relationships.$transcript',
    );
    expectError(
      await post(`/v1/meetings/${id}`, { fields: { $title: null } }),
      422,
      'read_only_field',
      'fields.$title',
    );
    expectError(await post(`/v1/meetings/${id}`, { fields: { $nope: null } }), 400, 'unknown_field', 'fields.$nope');
    expectError(await post(`/v1/meetings/${id}`, { fields: 'METADATA' }), 400, 'invalid_type', 'fields');
    expectError(await post(`/v1/meetings/${id}`, { relationships: [] }), 400, 'invalid_type', 'relationships');
  });

  it('validates the update body with its DTO, and the create options with theirs beside the record body', async () => {
    const id = (await post('/v1/meetings', meeting())).body.id;
    const postText = (path: string, text: string) =>
      suite.t.http.post(path).set(v1Headers(suite.ws.key)).set('Content-Type', 'application/json').send(text);
    expectError(
      await post(`/v1/meetings/${id}`, { fields: { $privacySetting: 'FULL' }, extra: 1 }),
      400,
      'unknown_field',
      'extra',
    );
    for (const name of ['__proto__', 'constructor']) {
      expectError(await postText(`/v1/meetings/${id}`, `{"${name}":{"fields":{}}}`), 400, 'unknown_field', name);
    }
    expectError(
      await post('/v1/meetings', meeting({}, { autoCreateRecords: [true] })),
      400,
      'invalid_type',
      'autoCreateRecords',
    );
    expectError(await post('/v1/meetings', meeting({}, { extra: 1 })), 400, 'unknown_field', 'extra');
    // The rest of a create body is a record body: a custom field may be named like an Object.prototype member.
    const fresh = await createWorkspace(suite.t.http);
    const custom = await suite.t.http
      .post(`/admin/v1/workspaces/${fresh.workspaceId}/object-types/meeting/fields`)
      .set(adminHeaders())
      .send({ key: 'constructor', label: 'Builder', valueType: 'TEXT' });
    expect(custom.status).toBe(200);
    const created = await post(
      '/v1/meetings',
      meeting({ constructor: 'Ada' }, { autoCreateRecords: false }),
      fresh.key,
    );
    expect(created.status).toBe(200);
    expect(created.body.fields.constructor).toEqual({ value: 'Ada', valueType: 'TEXT' });
  });

  it('takes one COMPLETED transcript of this workspace that no other meeting has', async () => {
    const pending = await uploadFile(suite.t.http, suite.ws.key, { complete: false });
    const used = await uploadFile(suite.t.http, suite.ws.key);
    const foreign = await uploadFile(suite.t.http, suite.other.key);
    const free = await uploadFile(suite.t.http, suite.ws.key);
    expect((await post('/v1/meetings', meeting({}, { relationships: { $transcript: [used] } }))).status).toBe(200);
    const refusals: [unknown, string][] = [
      [pending, 'invalid_value'],
      [used, 'invalid_value'],
      [[free, used], 'invalid_value'],
      [foreign, 'relationship_entity_missing'],
      ['fil_nope', 'relationship_entity_missing'],
    ];
    for (const [transcript, code] of refusals) {
      expectError(
        await post('/v1/meetings', meeting({}, { relationships: { $transcript: transcript } })),
        422,
        code,
        'relationships.$transcript',
      );
    }
    const target = (await post('/v1/meetings', meeting())).body.id;
    expectError(
      await post(`/v1/meetings/${target}`, { relationships: { $transcript: { replace: used } } }),
      422,
      'invalid_value',
    );
  });

  describe('privacy', () => {
    let meetingId: string;
    let transcript: string;
    const keys: Record<'creator' | 'organizer' | 'attendee' | 'outsider', string> = {
      creator: '',
      organizer: '',
      attendee: '',
      outsider: '',
    };

    beforeAll(async () => {
      for (const role of Object.keys(keys) as (keyof typeof keys)[]) {
        const member = await createMember(suite.t.http, suite.ws.workspaceId, {
          email: `${role}-${Date.now()}@corp.example`,
        });
        keys[role] = (
          await createKey(suite.t.http, suite.ws.workspaceId, member.id, [
            'meetings:read',
            'meetings:create',
            'meetings:update',
            'files:read',
            'files:create',
          ])
        ).key;
        (keys as Record<string, string>)[`${role}Email`] = member.email;
      }
      transcript = await uploadFile(suite.t.http, keys.creator);
      const created = await post(
        '/v1/meetings',
        meeting(
          {
            $privacySetting: 'METADATA',
            $organizerEmail: (keys as Record<string, string>).organizerEmail,
            $attendeeEmails: [(keys as Record<string, string>).attendeeEmail.toUpperCase()],
            $description: 'secret agenda',
            topic: 'layoffs',
          },
          { relationships: { $transcript: transcript } },
        ),
        keys.creator,
      );
      expect(created.status).toBe(200);
      meetingId = created.body.id;
    });

    it.each(['creator', 'organizer', 'attendee'] as const)('gives the %s FULL access everywhere', async (role) => {
      const read = await get(`/v1/meetings/${meetingId}`, keys[role]);
      expect(read.body.accessLevel).toBe('FULL');
      expect(read.body.fields.$description.value).toBe('secret agenda');
      expect(read.body.relationships.$transcript.values).toEqual([transcript]);
      expect((await get(`/v1/files/${transcript}`, keys[role])).status).toBe(200);
      const filtered = await get('/v1/meetings?topic=layoffs', keys[role]);
      expect(filtered.body.data.map((m: { id: string }) => m.id)).toEqual([meetingId]);
    });

    it('redacts, never omits, for another member, and hides the transcript on every files route', async () => {
      const read = await get(`/v1/meetings/${meetingId}`, keys.outsider);
      expect(read.status).toBe(200);
      suite.openapi.assert(read);
      expect(read.body.accessLevel).toBe('METADATA');
      expect(read.body.fields.$description.value).toBeNull();
      expect(read.body.fields.topic.value).toBeNull();
      expect(read.body.fields.$title.value).toBe('Weekly');
      expect(read.body.fields.$organizerEmail.value).toBe(
        (keys as Record<string, string>).organizerEmail.toLowerCase(),
      );
      expect(read.body.relationships).not.toHaveProperty('$transcript');
      const list = await get('/v1/meetings?limit=25', keys.outsider);
      suite.openapi.assert(list);
      const item = list.body.data.find((m: { id: string }) => m.id === meetingId);
      expect(item).toMatchObject({ accessLevel: 'METADATA', fields: { $description: { value: null } } });
      expect((await get('/v1/meetings?topic=layoffs', keys.outsider)).body).toMatchObject({ data: [], totalCount: 0 });
      expect(
        (await get(`/v1/meetings?$title=Weekly&limit=25`, keys.outsider)).body.data.map((m: { id: string }) => m.id),
      ).toContain(meetingId);
      expectError(await get(`/v1/files/${transcript}`, keys.outsider), 404, 'not_found');
      expectError(await get(`/v1/files/${transcript}/url`, keys.outsider), 404, 'not_found');
      const files = await get('/v1/files?limit=25', keys.outsider);
      expect(files.body.data.map((f: { id: string }) => f.id)).not.toContain(transcript);
    });

    it('lets no caller without FULL access replace the transcript or lift the privacy setting', async () => {
      const own = await uploadFile(suite.t.http, keys.outsider);
      expectError(
        await post(`/v1/meetings/${meetingId}`, { fields: { $privacySetting: 'FULL' } }, keys.outsider),
        403,
        'not_permitted',
      );
      expectError(
        await post(`/v1/meetings/${meetingId}`, { fields: { $privacySetting: null } }, keys.outsider),
        403,
        'not_permitted',
      );
      expectError(
        await post(`/v1/meetings/${meetingId}`, { relationships: { $transcript: { replace: own } } }, keys.outsider),
        403,
        'not_permitted',
      );
      expectError(await get(`/v1/files/${transcript}`, keys.outsider), 404, 'not_found');
    });

    it('gives everyone FULL access once the setting is FULL', async () => {
      expect(
        (await post(`/v1/meetings/${meetingId}`, { fields: { $privacySetting: 'FULL' } }, keys.creator)).status,
      ).toBe(200);
      expect((await get(`/v1/meetings/${meetingId}`, keys.outsider)).body.accessLevel).toBe('FULL');
      expect((await get(`/v1/files/${transcript}`, keys.outsider)).status).toBe(200);
      await post(`/v1/meetings/${meetingId}`, { fields: { $privacySetting: 'METADATA' } }, keys.creator);
    });
  });

  it('links contacts, their accounts and opportunities from attendee emails', async () => {
    const fresh = await createWorkspace(suite.t.http);
    const account = (await post('/v1/accounts', { fields: { $name: 'Acme' } }, fresh.key)).body.id;
    const contact = (
      await post(
        '/v1/contacts',
        { fields: { $email: ['pat@acme.example'] }, relationships: { $account: account } },
        fresh.key,
      )
    ).body.id;
    const deal = (
      await post(
        '/v1/opportunities',
        { fields: { $name: 'D', $stage: 'LEAD' }, relationships: { $account: account } },
        fresh.key,
      )
    ).body.id;
    const created = await post(
      '/v1/meetings',
      meeting({ $attendeeEmails: ['Pat@acme.example', 'new@elsewhere.example'] }),
      fresh.key,
    );
    expect(created.body.relationships).toMatchObject({
      $contact: { values: [contact] },
      $account: { values: [account] },
      $opportunity: { values: [deal] },
    });
    expect((await get(`/v1/contacts/${contact}`, fresh.key)).body.relationships.$meeting.values).toEqual([
      created.body.id,
    ]);
    expect((await get('/v1/contacts', fresh.key)).body.totalCount).toBe(1);
  });

  it('creates contacts and an account per new domain with autoCreateRecords', async () => {
    const fresh = await createWorkspace(suite.t.http);
    const created = await post(
      '/v1/meetings',
      meeting(
        { $attendeeEmails: ['ann@newco.example', 'bob@newco.example', fresh.memberEmail] },
        { autoCreateRecords: true },
      ),
      fresh.key,
    );
    expect(created.status).toBe(200);
    expect(created.body.relationships.$contact.values).toHaveLength(2);
    expect(created.body.relationships.$account.values).toHaveLength(1);
    const account = await get(`/v1/accounts/${created.body.relationships.$account.values[0]}`, fresh.key);
    expect(account.body.fields.$name.value).toBe('newco.example');
    expect((await get('/v1/contacts', fresh.key)).body.totalCount).toBe(2);
  });

  describe('autoCreateRecords', () => {
    const addField = async (workspaceId: string, type: string, key: string) => {
      const added = await suite.t.http
        .post(`/admin/v1/workspaces/${workspaceId}/object-types/${type}/fields`)
        .set(adminHeaders())
        .send({ key, label: key, valueType: 'TEXT', required: true });
      expect(added.status).toBe(200);
    };
    const countOf = async (path: string, key: string) => (await get(`/v1/${path}`, key)).body.totalCount as number;
    const accountOfContactWith = async (email: string, key: string) => {
      const found = await get(`/v1/contacts?$email=${encodeURIComponent(email)}`, key);
      expect(found.body.totalCount).toBe(1);
      return found.body.data[0].relationships.$account.values as string[];
    };

    it('never refuses a meeting for a field it does not have: contacts a workspace requires more of are not auto-created', async () => {
      const fresh = await createWorkspace(suite.t.http);
      await addField(fresh.workspaceId, 'contact', 'badge');
      const known = (await post('/v1/contacts', { fields: { $email: ['bob@badge.example'], badge: 'B-1' } }, fresh.key))
        .body.id;
      const body = meeting({ $attendeeEmails: ['ann@badge.example', 'bob@badge.example'] });
      const plain = await post('/v1/meetings', body, fresh.key);
      const auto = await post('/v1/meetings', { ...body, autoCreateRecords: true }, fresh.key);
      for (const created of [plain, auto]) {
        expect(created.status).toBe(200);
        expect(created.body.relationships.$contact.values).toEqual([known]);
      }
      expect(await countOf('contacts', fresh.key)).toBe(1);
      expect(await countOf('accounts', fresh.key)).toBe(0);
    });

    it('creates contacts without an account when accounts need more, and still links an existing one', async () => {
      const fresh = await createWorkspace(suite.t.http);
      await addField(fresh.workspaceId, 'account', 'tier');
      const known = (
        await post(
          '/v1/accounts',
          { fields: { $name: 'Known', $website: ['https://www.known.example/about'], tier: 'gold' } },
          fresh.key,
        )
      ).body.id;
      const created = await post(
        '/v1/meetings',
        meeting({ $attendeeEmails: ['ann@new.example', 'kim@known.example'] }, { autoCreateRecords: true }),
        fresh.key,
      );
      expect(created.status).toBe(200);
      expect(created.body.relationships.$contact.values).toHaveLength(2);
      expect(created.body.relationships.$account.values).toEqual([known]);
      expect(await accountOfContactWith('ann@new.example', fresh.key)).toEqual([]);
      expect(await accountOfContactWith('kim@known.example', fresh.key)).toEqual([known]);
      expect(await countOf('accounts', fresh.key)).toBe(1);
    });

    it('reuses the account whose website is on the email domain, whatever the scheme, www., case, port or path', async () => {
      const fresh = await createWorkspace(suite.t.http);
      const account = async (name: string, websites: string[]) =>
        (await post('/v1/accounts', { fields: { $name: name, $website: websites } }, fresh.key)).body.id as string;
      const alpha = await account('Alpha', ['https://www.alpha.example']);
      await account('Alpha again', ['https://alpha.example']); // younger: the oldest account on a host wins
      const beta = await account('Beta', ['http://beta.example/']);
      const gamma = await account('Gamma', ['https://other.example', 'HTTPS://Gamma.EXAMPLE/team?x=1#top']);
      const delta = await account('Delta', ['https://user@delta.example:8443/x']);
      await account('Look-alikes', [
        'https://notepsilon.example',
        'https://epsilon.example.evil.test',
        'https://sub.epsilon.example',
      ]);
      const emails = [
        'a@alpha.example',
        'b@beta.example',
        'c@GAMMA.example',
        'd@delta.example',
        'w@www.alpha.example',
        'e@epsilon.example',
      ];
      const created = await post(
        '/v1/meetings',
        meeting({ $attendeeEmails: emails }, { autoCreateRecords: true }),
        fresh.key,
      );
      expect(created.status).toBe(200);
      expect(await accountOfContactWith('a@alpha.example', fresh.key)).toEqual([alpha]);
      expect(await accountOfContactWith('w@www.alpha.example', fresh.key)).toEqual([alpha]);
      expect(await accountOfContactWith('b@beta.example', fresh.key)).toEqual([beta]);
      expect(await accountOfContactWith('c@gamma.example', fresh.key)).toEqual([gamma]);
      expect(await accountOfContactWith('d@delta.example', fresh.key)).toEqual([delta]);
      const [epsilon] = await accountOfContactWith('e@epsilon.example', fresh.key);
      expect((await get(`/v1/accounts/${epsilon}`, fresh.key)).body.fields).toMatchObject({
        $name: { value: 'epsilon.example' },
        $website: { value: ['https://epsilon.example'] },
      });
      expect(await countOf('accounts', fresh.key)).toBe(7);
      // A second meeting with the same domains creates nothing more.
      const again = await post(
        '/v1/meetings',
        meeting({ $attendeeEmails: ['x@Epsilon.example', 'y@beta.example'] }, { autoCreateRecords: true }),
        fresh.key,
      );
      expect(again.body.relationships.$account.values.sort()).toEqual([beta, epsilon].sort());
      expect(await countOf('accounts', fresh.key)).toBe(7);
    });

    it('finds accounts by website host through the host index, never by reading every website', async () => {
      const runner = suite.t.app.get(DataSource).createQueryRunner();
      await runner.startTransaction();
      try {
        // A workspace with many websites (rolled back), so that the planner's choice shows: the host
        // is looked up in the index only when the lookup's expression is the index's.
        const fresh = await createWorkspace(suite.t.http);
        await runner.query(
          `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
           SELECT 'acc_' || lpad(g::text, 26, '0'), $1, 'account',
                  jsonb_build_object('$name', 'A' || g, '$website',
                    (SELECT jsonb_agg('https://www.site' || g || '-' || k || '.example/about') FROM generate_series(1, 20) k)),
                  now()
             FROM generate_series(1, 1000) g`,
          [fresh.workspaceId],
        );
        await runner.query('ANALYZE record_values');
        const [{ 'QUERY PLAN': plan }] = await runner.query(`EXPLAIN (FORMAT JSON) ${OLDEST_BY_URL_HOST}`, [
          fresh.workspaceId,
          'account',
          '$website',
          ['site7-3.example'],
        ]);
        const scans: Record<string, string>[] = [];
        const walk = (node: Record<string, unknown> & { 'Index Name'?: string; 'Index Cond'?: string }) => {
          if (node['Index Name']) scans.push({ index: node['Index Name'], condition: String(node['Index Cond']) });
          for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
        };
        walk(plan[0].Plan);
        // The host is looked up in the index (its Index Cond), not filtered from every entry it holds.
        expect(scans).toEqual(
          expect.arrayContaining([
            { index: 'record_values_website_host_idx', condition: expect.stringContaining('= ANY') },
            { index: 'records_pkey', condition: expect.stringContaining('record_id') },
          ]),
        );
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    });

    it('gives an email whose domain no website can have a contact without an account', async () => {
      const fresh = await createWorkspace(suite.t.http);
      const created = await post(
        '/v1/meetings',
        meeting({ $attendeeEmails: ['joe@a:b.example'] }, { autoCreateRecords: true }),
        fresh.key,
      );
      expect(created.status).toBe(200);
      expect(await accountOfContactWith('joe@a:b.example', fresh.key)).toEqual([]);
      expect(await countOf('accounts', fresh.key)).toBe(0);
    });
  });

  it('keeps workspaces apart and requires the meeting scopes', async () => {
    const created = (await post('/v1/meetings', meeting())).body.id;
    expectError(await get(`/v1/meetings/${created}`, suite.other.key), 404, 'not_found');
    expectError(
      await post(`/v1/meetings/${created}`, { fields: { $privacySetting: 'FULL' } }, suite.other.key),
      404,
      'not_found',
    );
    expectError(await get('/v1/meetings/mtg_bad'), 404, 'not_found');
    const reader = await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['meetings:read']);
    expectError(await post('/v1/meetings', meeting(), reader.key), 403, 'insufficient_scope');
    expectError(
      await post(`/v1/meetings/${created}`, { fields: { $privacySetting: 'FULL' } }, reader.key),
      403,
      'insufficient_scope',
    );
  });
});

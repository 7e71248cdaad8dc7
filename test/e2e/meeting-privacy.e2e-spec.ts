import { DataSource } from 'typeorm';
import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createKey, createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { adminHeaders } from '../support/test-app';
import { uploadFile } from '../support/transcripts';

const HOUR = 3_600_000;
const START = new Date(Date.now() - 3 * HOUR).toISOString();
const END = new Date(Date.now() - 2 * HOUR).toISOString();
const SCOPES = ['meetings:read', 'meetings:create', 'meetings:update', 'files:read', 'files:create'];

const ROLES = ['creator', 'organizer', 'attendee', 'outsider'] as const;
type Role = (typeof ROLES)[number];
type Emails = Record<Role, string>;

/** What a variant changes in the stored meeting after the API created it (as an import might have stored it). */
type Alteration =
  'no creator link' | 'organizer and attendees JSON null' | 'no privacySetting' | 'privacySetting JSON null';

interface Variant {
  name: string;
  fields: (emails: Emails) => Record<string, unknown>;
  alterations?: Alteration[];
  /** The roles with FULL access; every other role sees METADATA. */
  full: readonly Role[];
}

/** Each optional member that decides access, unset in turn and all together. */
const VARIANTS: Variant[] = [
  { name: 'METADATA, no organizer, no attendees', fields: () => ({ $privacySetting: 'METADATA' }), full: ['creator'] },
  {
    name: 'METADATA, an organizer, no attendees',
    fields: (emails) => ({ $privacySetting: 'METADATA', $organizerEmail: emails.organizer }),
    full: ['creator', 'organizer'],
  },
  {
    name: 'METADATA, attendees, no organizer',
    fields: (emails) => ({ $privacySetting: 'METADATA', $attendeeEmails: [emails.attendee.toUpperCase()] }),
    full: ['creator', 'attendee'],
  },
  {
    name: 'METADATA, an empty attendee list, no organizer',
    fields: () => ({ $privacySetting: 'METADATA', $attendeeEmails: [] }),
    full: ['creator'],
  },
  {
    name: 'METADATA, no creator, no organizer, no attendees',
    fields: () => ({ $privacySetting: 'METADATA' }),
    alterations: ['no creator link'],
    full: [],
  },
  {
    name: 'METADATA, no creator, organizer and attendees stored as JSON null',
    fields: (emails) => ({
      $privacySetting: 'METADATA',
      $organizerEmail: emails.organizer,
      $attendeeEmails: [emails.attendee],
    }),
    alterations: ['no creator link', 'organizer and attendees JSON null'],
    full: [],
  },
  {
    name: 'no privacySetting and nothing else',
    fields: () => ({}),
    alterations: ['no creator link', 'no privacySetting'],
    full: ROLES,
  },
  {
    name: 'privacySetting stored as JSON null and nothing else',
    fields: () => ({}),
    alterations: ['no creator link', 'privacySetting JSON null'],
    full: ROLES,
  },
];

const ALTERATION_SQL: Record<Alteration, string> = {
  'no creator link': `DELETE FROM record_links WHERE source_id = $1 AND link = 'meeting:$createdBy'`,
  'organizer and attendees JSON null': `UPDATE records SET fields = fields || '{"$organizerEmail": null, "$attendeeEmails": null}' WHERE id = $1`,
  'no privacySetting': `UPDATE records SET fields = fields - '$privacySetting' WHERE id = $1`,
  'privacySetting JSON null': `UPDATE records SET fields = fields || '{"$privacySetting": null}' WHERE id = $1`,
};

const ids = (response: { body: { data: { id: string }[] } }) => response.body.data.map((item) => item.id);

describe('meeting privacy on every path, with each optional member unset', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  const keys = {} as Record<Role, string>;
  const emails = {} as Emails;
  const meetings: { id: string; file: string; title: string; topic: string }[] = [];

  /** Every file the key lists, page by page, and the totalCount of each page. */
  async function allFiles(key: string): Promise<{ listed: string[]; totals: number[] }> {
    const listed: string[] = [];
    const totals: number[] = [];
    for (let offset = 0; offset === 0 || offset < totals[0]; offset += 25) {
      const page = await get(`/v1/files?limit=25&offset=${offset}`, key);
      expect(page.status).toBe(200);
      totals.push(page.body.totalCount);
      listed.push(...ids(page));
    }
    return { listed, totals };
  }

  beforeAll(async () => {
    const topic = await suite.t.http
      .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types/meeting/fields`)
      .set(adminHeaders())
      .send({ key: 'topic', label: 'Topic', valueType: 'TEXT' });
    expect(topic.status).toBe(200);
    for (const role of ROLES) {
      const member = await createMember(suite.t.http, suite.ws.workspaceId, {
        email: `${role}-${Date.now()}@Corp.example`,
      });
      keys[role] = (await createKey(suite.t.http, suite.ws.workspaceId, member.id, SCOPES)).key;
      emails[role] = member.email;
    }
    const dataSource = suite.t.app.get(DataSource);
    for (const [index, variant] of VARIANTS.entries()) {
      const file = await uploadFile(suite.t.http, keys.creator);
      const title = `Privacy ${index}`;
      const topicValue = `hush-${index}`;
      const created = await post(
        '/v1/meetings',
        {
          fields: {
            $title: title,
            $startDate: START,
            $endDate: END,
            $description: 'secret agenda',
            topic: topicValue,
            ...variant.fields(emails),
          },
          relationships: { $transcript: file },
        },
        keys.creator,
      );
      expect(created.status).toBe(200);
      for (const alteration of variant.alterations ?? [])
        await dataSource.query(ALTERATION_SQL[alteration], [created.body.id]);
      meetings.push({ id: created.body.id, file, title, topic: topicValue });
    }
  });

  describe.each(VARIANTS.map((variant, index) => [variant.name, index, variant] as const))(
    '%s',
    (_name, index, variant) => {
      it.each(ROLES.map((role) => [role, variant.full.includes(role) ? 'FULL' : 'METADATA'] as const))(
        'the %s has %s access on retrieve, list, update and every files route',
        async (role, level) => {
          const full = level === 'FULL';
          const { id, file, title, topic } = meetings[index];
          const key = keys[role];

          const read = await get(`/v1/meetings/${id}`, key);
          expect(read.status).toBe(200);
          suite.openapi.assert(read);
          expect(read.body.accessLevel).toBe(level);
          expect(read.body.fields.$title.value).toBe(title);
          expect(read.body.fields.$description.value).toBe(full ? 'secret agenda' : null);
          expect(read.body.fields.topic.value).toBe(full ? topic : null);
          if (full) expect(read.body.relationships.$transcript.values).toEqual([file]);
          else expect(read.body.relationships).not.toHaveProperty('$transcript');

          const listed = await get(`/v1/meetings?$title=${encodeURIComponent(title)}`, key);
          suite.openapi.assert(listed);
          expect(listed.body).toMatchObject({ totalCount: 1 });
          expect(listed.body.data).toEqual([read.body]);
          for (const hidden of [`topic=${topic}`, `$transcript=${file}`]) {
            const filtered = await get(`/v1/meetings?${hidden}`, key);
            expect({ hidden, found: ids(filtered), totalCount: filtered.body.totalCount }).toEqual({
              hidden,
              found: full ? [id] : [],
              totalCount: full ? 1 : 0,
            });
          }

          const fileRead = await get(`/v1/files/${file}`, key);
          const url = await get(`/v1/files/${file}/url`, key);
          const complete = await post(`/v1/files/${file}/complete`, {}, key);
          const cancel = await post(`/v1/files/${file}/cancel`, {}, key);
          if (full) {
            expect(fileRead.status).toBe(200);
            expect(url.status).toBe(200);
            expectError(complete, 409, 'invalid_state');
            expectError(cancel, 409, 'invalid_state');
          } else {
            for (const response of [fileRead, url, complete, cancel]) expectError(response, 404, 'not_found');
          }
          const { listed: files, totals } = await allFiles(key);
          expect(files.includes(file)).toBe(full);
          expect(totals.every((total) => total === files.length)).toBe(true);

          // Last, as it stamps updatedAt: the empty update passes the same access gate as any change.
          const updated = await post(`/v1/meetings/${id}`, {}, key);
          if (full) {
            expect(updated.status).toBe(200);
            expect(updated.body.accessLevel).toBe('FULL');
          } else {
            expectError(updated, 403, 'not_permitted');
          }
        },
      );
    },
  );

  it('counts, for each caller, exactly the files it is shown', async () => {
    const visibleTranscripts = (role: Role) => VARIANTS.filter((variant) => variant.full.includes(role)).length;
    for (const role of ROLES) {
      const { listed, totals } = await allFiles(keys[role]);
      const transcripts = listed.filter((file) => meetings.some((meeting) => meeting.file === file));
      expect({ role, transcripts: transcripts.length, total: totals[0] }).toEqual({
        role,
        transcripts: visibleTranscripts(role),
        total: listed.length,
      });
    }
  });
});

describe('meeting filters at METADATA access', () => {
  const suite = apiSuite();
  let fresh: TestWorkspace;
  const keys = {} as Record<'creator' | 'attendee' | 'outsider', string>;
  let creatorId: string;
  let hidden: string;
  let open: string;
  let file: string;
  let related: { contact: string; account: string; deal: string };

  const as = (key: string) => (query: string) => suite.get(`/v1/meetings?${query}`, key);

  beforeAll(async () => {
    fresh = await createWorkspace(suite.t.http);
    const topic = await suite.t.http
      .post(`/admin/v1/workspaces/${fresh.workspaceId}/object-types/meeting/fields`)
      .set(adminHeaders())
      .send({ key: 'topic', label: 'Topic', valueType: 'TEXT' });
    expect(topic.status).toBe(200);
    const memberEmails: Record<string, string> = {};
    for (const role of ['creator', 'attendee', 'outsider'] as const) {
      const member = await createMember(suite.t.http, fresh.workspaceId);
      keys[role] = (await createKey(suite.t.http, fresh.workspaceId, member.id, SCOPES)).key;
      memberEmails[role] = member.email;
      if (role === 'creator') creatorId = member.id;
    }
    const account = (await suite.post('/v1/accounts', { fields: { $name: 'Acme' } }, fresh.key)).body.id;
    const contact = (
      await suite.post(
        '/v1/contacts',
        { fields: { $email: ['pat@acme.example'] }, relationships: { $account: account } },
        fresh.key,
      )
    ).body.id;
    const deal = (
      await suite.post(
        '/v1/opportunities',
        { fields: { $name: 'Deal', $stage: 'LEAD' }, relationships: { $account: account } },
        fresh.key,
      )
    ).body.id;
    related = { contact, account, deal };
    file = await uploadFile(suite.t.http, keys.creator);
    const created = await suite.post(
      '/v1/meetings',
      {
        fields: {
          $title: 'Board',
          $startDate: START,
          $endDate: END,
          $attendeeEmails: ['pat@acme.example', memberEmails.attendee],
          $organizerEmail: 'boss@elsewhere.example',
          $meetingUrl: 'https://meet.example.com/board',
          $privacySetting: 'METADATA',
          $description: 'secret agenda',
          topic: 'hush',
        },
        relationships: { $transcript: file },
      },
      keys.creator,
    );
    expect(created.status).toBe(200);
    expect(created.body.relationships).toMatchObject({
      $contact: { values: [contact] },
      $account: { values: [account] },
      $opportunity: { values: [deal] },
    });
    hidden = created.body.id;
    const other = await suite.post(
      '/v1/meetings',
      { fields: { $title: 'Standup', $startDate: START, $endDate: END } },
      fresh.key,
    );
    open = other.body.id;
  });

  it('matches filters on what METADATA access shows as for a caller with FULL access', async () => {
    const visible = [
      `$createdBy=${creatorId}`,
      `$contact=${related.contact}`,
      `$account=${related.account}`,
      `$opportunity=${related.deal}`,
      '$title=Board',
      '$title[startsWith]=Boa',
      `$startDate=${encodeURIComponent(START)}`,
      `$endDate[lessThanOrEqual]=${encodeURIComponent(END)}`,
      '$attendeeEmails=pat@acme',
      '$organizerEmail=boss@elsewhere',
      '$meetingUrl=meet.example.com/board',
      '$privacySetting=METADATA',
      `$contact[-equal]=${related.contact}`,
      '$privacySetting=METADATA&$account=' + related.account,
    ];
    for (const query of visible) {
      const outsider = await as(keys.outsider)(query);
      const attendee = await as(keys.attendee)(query);
      expect(outsider.status).toBe(200);
      expect({ query, outsider: ids(outsider), total: outsider.body.totalCount }).toEqual({
        query,
        outsider: ids(attendee),
        total: attendee.body.totalCount,
      });
    }
    expect(ids(await as(keys.outsider)(`$account=${related.account}`))).toEqual([hidden]);
    const outsiderView = (await as(keys.outsider)(`$opportunity=${related.deal}`)).body.data[0];
    expect(outsiderView).toMatchObject({ id: hidden, accessLevel: 'METADATA', fields: { topic: { value: null } } });
    expect(ids(await as(keys.outsider)(`$contact[-equal]=${related.contact}`))).toEqual([open]);
  });

  it('never matches a hidden field or the transcript at METADATA access, negated or not', async () => {
    const cases: [string, string[], string[]][] = [
      ['topic=hush', [], [hidden]],
      ['topic[startsWith]=hu', [], [hidden]],
      ['topic[-equal]=other', [open], [open, hidden]],
      [`$transcript=${file}`, [], [hidden]],
      [`$transcript[-equal]=${file}`, [open], [open]],
      ['topic=hush&$title=Board', [], [hidden]],
    ];
    for (const [query, outsider, attendee] of cases) {
      const seenByOutsider = await as(keys.outsider)(query);
      const seenByAttendee = await as(keys.attendee)(query);
      expect({ query, outsider: ids(seenByOutsider), attendee: ids(seenByAttendee) }).toEqual({
        query,
        outsider,
        attendee,
      });
      expect(seenByOutsider.body.totalCount).toBe(outsider.length);
    }
    expectError(await as(keys.outsider)('$description=secret'), 400, 'invalid_filter', '$description');
  });
});

describe('what a meeting at METADATA access gives away through other routes', () => {
  const suite = apiSuite();
  let fresh: TestWorkspace;
  const keys = {} as Record<'creator' | 'outsider', string>;
  let meeting: string;
  let transcript: string;
  let deal: string;

  const addToMeetings = (kind: 'fields' | 'relationships', body: object) =>
    suite.t.http
      .post(`/admin/v1/workspaces/${fresh.workspaceId}/object-types/meeting/${kind}`)
      .set(adminHeaders())
      .send(body);

  beforeAll(async () => {
    fresh = await createWorkspace(suite.t.http);
    for (const role of ['creator', 'outsider'] as const) {
      const member = await createMember(suite.t.http, fresh.workspaceId);
      keys[role] = (await createKey(suite.t.http, fresh.workspaceId, member.id, [...SCOPES, 'opportunities:read'])).key;
    }
    expect((await addToMeetings('fields', { key: 'code', label: 'Code', valueType: 'TEXT' })).status).toBe(200);
    const relationship = await addToMeetings('relationships', {
      key: 'deal',
      label: 'Deal',
      cardinality: 'HAS_MANY',
      objectType: 'opportunity',
    });
    expect(relationship.status).toBe(200);
    const account = (await suite.post('/v1/accounts', { fields: { $name: 'Acme' } }, fresh.key)).body.id;
    deal = (
      await suite.post(
        '/v1/opportunities',
        { fields: { $name: 'Deal', $stage: 'LEAD' }, relationships: { $account: account } },
        fresh.key,
      )
    ).body.id;
    transcript = await uploadFile(suite.t.http, keys.creator);
    const created = await suite.post(
      '/v1/meetings',
      {
        fields: {
          $title: 'Private',
          $startDate: START,
          $endDate: END,
          $privacySetting: 'METADATA',
          code: 'PROJECT-ZETA-42',
        },
        relationships: { $transcript: transcript, deal: [deal] },
        externalId: 'calendar-event-7',
      },
      keys.creator,
    );
    expect(created.body).toMatchObject({ accessLevel: 'FULL' });
    meeting = created.body.id;
  });

  it('refuses a unique custom field on meetings, whose values some callers must not learn', async () => {
    const unique = await addToMeetings('fields', { key: 'ticket', label: 'Ticket', valueType: 'TEXT', unique: true });
    expectError(unique, 422, 'invalid_value', 'unique');
    const configured = await addToMeetings('fields', {
      key: 'ticket',
      label: 'Ticket',
      valueType: 'TEXT',
      typeConfiguration: { unique: true },
    });
    expectError(configured, 422, 'invalid_value', 'typeConfiguration.unique');
    const onNotes = await suite.t.http
      .post(`/admin/v1/workspaces/${fresh.workspaceId}/object-types/note/fields`)
      .set(adminHeaders())
      .send({ key: 'ticket', label: 'Ticket', valueType: 'TEXT', unique: true });
    expect(onNotes.status).toBe(200);
  });

  it('answers for a transcript the caller may not read exactly as for a file that does not exist', async () => {
    const own = await suite.post(
      '/v1/meetings',
      { fields: { $title: 'Mine', $startDate: START, $endDate: END } },
      keys.outsider,
    );
    expect(own.status).toBe(200);
    const take = (file: string) =>
      suite.post(`/v1/meetings/${own.body.id}`, { relationships: { $transcript: { replace: file } } }, keys.outsider);
    const madeUp = `fil_${'0'.repeat(26)}`;
    const hiddenTranscript = await take(transcript);
    const missing = await take(madeUp);
    expectError(hiddenTranscript, 422, 'relationship_entity_missing', 'relationships.$transcript');
    expectError(missing, 422, 'relationship_entity_missing', 'relationships.$transcript');
    expect(hiddenTranscript.body.error.message.replace(transcript, '<id>')).toBe(
      missing.body.error.message.replace(madeUp, '<id>'),
    );

    // Its own meeting's transcript is no secret to the creator: it hears why it cannot take it.
    const creators = await suite.post(
      '/v1/meetings',
      { fields: { $title: 'Also mine', $startDate: START, $endDate: END } },
      keys.creator,
    );
    const taken = await suite.post(
      `/v1/meetings/${creators.body.id}`,
      { relationships: { $transcript: { replace: transcript } } },
      keys.creator,
    );
    expectError(taken, 422, 'invalid_value', 'relationships.$transcript');
    expect(taken.body.error.message).toMatch(/already another meeting's transcript/);
  });

  it("keeps the meeting's identifiers and links visible and its content hidden, as docs/api.md §9 says", async () => {
    const read = await suite.get(`/v1/meetings/${meeting}`, keys.outsider);
    expect(read.body).toMatchObject({ accessLevel: 'METADATA', externalId: 'calendar-event-7' });
    expect(read.body.fields.code.value).toBeNull();
    expect(read.body.relationships.deal.values).toEqual([deal]);
    expect(read.body.relationships).not.toHaveProperty('$transcript');
    expect(ids(await suite.get(`/v1/meetings?deal=${deal}`, keys.outsider))).toEqual([meeting]);
    expect(ids(await suite.get(`/v1/meetings?code=PROJECT-ZETA-42`, keys.outsider))).toEqual([]);
    const opportunity = await suite.get(`/v1/opportunities/${deal}`, keys.outsider);
    expect(opportunity.body.relationships.meeting_deal.values).toEqual([meeting]);
  });
});

import type { Response } from 'supertest';
import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createKey, createMember } from '../support/factories';
import { adminHeaders } from '../support/test-app';
import { uploadFile } from '../support/transcripts';

const HOUR = 3_600_000;

interface SearchResult {
  object: string;
  entityType: string;
  entityId: string;
  score: number;
  matches: { field: string; snippet: string }[];
  data: { id: string; fields: Record<string, { value: unknown }>; accessLevel?: string };
}

const results = (response: Response): SearchResult[] => response.body.data as SearchResult[];
const foundIds = (response: Response): string[] => results(response).map((result) => result.entityId);

describe('GET /v1/search', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  const ids: Record<string, string> = {};

  async function create(path: string, fields: Record<string, unknown>, key?: string): Promise<string> {
    const created = await post(path, { fields }, key);
    expect(created.status).toBe(200);
    return created.body.id as string;
  }

  async function search(query: string, key?: string): Promise<Response> {
    const response = await get(`/v1/search?${query}`, key);
    if (response.status === 200) suite.openapi.assert(response);
    return response;
  }

  beforeAll(async () => {
    ids.zoe = await create('/v1/contacts', {
      $name: { firstName: 'Zoë', lastName: 'Müller' },
      $email: ['zoe.mueller@quokkamail.io'],
      $phone: ['+44 20 7946 0958'],
    });
    ids.john = await create('/v1/contacts', { $name: { firstName: 'John', lastName: 'Smith' } });
    ids.acme = await create('/v1/accounts', {
      $name: 'Acmeflux Industries',
      $website: ['https://www.wombat-works.com/about'],
    });
    ids.other = await create('/v1/accounts', { $name: 'Acmeflux Industries' }, suite.other.key);
  });

  it('matches words without accents or case, the last one as a prefix, and says where', async () => {
    for (const q of ['muller', 'ZOE', 'zoë müll', 'Mu']) {
      const response = await search(`q=${encodeURIComponent(q)}`);
      expect(response.status).toBe(200);
      expect(foundIds(response)).toContain(ids.zoe);
    }
    const [first] = results(await search('q=acmefl'));
    expect(first).toMatchObject({ object: 'search_result', entityType: 'account', entityId: ids.acme });
    expect(first.matches).toEqual([{ field: '$name', snippet: 'Acmeflux Industries' }]);
    expect(first.data).toMatchObject({ id: ids.acme, fields: { $name: { value: 'Acmeflux Industries' } } });
    expect(first.score).toBeGreaterThan(0);
  });

  it('finds a name with a typo', async () => {
    const response = await search('q=jonh%20smith');
    expect(foundIds(response)).toEqual([ids.john]);
    expect(results(response)[0].matches).toEqual([{ field: '$name', snippet: 'John Smith' }]);
  });

  it('finds emails, URL hosts and telephone numbers by fragment', async () => {
    for (const q of ['@quokkamail.io', 'quokkamail.io', 'zoe.mueller@quokkamail']) {
      expect(foundIds(await search(`q=${encodeURIComponent(q)}`))).toEqual([ids.zoe]);
    }
    const byHost = await search('q=wombat-works.com');
    expect(foundIds(byHost)).toEqual([ids.acme]);
    expect(results(byHost)[0].matches).toEqual([{ field: '$website', snippet: 'https://www.wombat-works.com/about' }]);
    for (const q of ['946 0958', '(20) 7946-0958', '+44 20 7946 0958', '0044 20 7946 0958']) {
      const response = await search(`q=${encodeURIComponent(q)}`);
      expect(foundIds(response)).toEqual([ids.zoe]);
      expect(results(response)[0].matches).toContainEqual({ field: '$phone', snippet: '+442079460958' });
    }
    // Five digits are too few to find a number by.
    expect(foundIds(await search('q=60958'))).toEqual([]);
  });

  it('searches custom types by their fields’ value types', async () => {
    const defined = await suite.t.http
      .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types`)
      .set(adminHeaders())
      .send({
        slug: 'venue',
        label: 'Venue',
        fields: {
          title: { label: 'Title', valueType: 'TEXT', required: true },
          contact: { label: 'Contact', valueType: 'EMAIL' },
        },
      });
    expect(defined.status).toBe(200);
    const venue = await create('/v1/objects/venue/values', {
      title: 'Théâtre Gaîté',
      contact: 'box-office@gaite-paris.fr',
    });
    expect(foundIds(await search('q=theatre%20gaite&types=venue'))).toEqual([venue]);
    expect(foundIds(await search('q=gaite-paris.fr'))).toEqual([venue]);
  });

  describe('matches name each field whose value matched, its snippet from that field', () => {
    const options = (...labels: string[]) => ({ options: labels.map((label) => ({ label })) });
    // One custom field of each searchable value type; each record holds a word of its own in one of them.
    const FIELDS: Record<string, { valueType: string; typeConfiguration?: object }> = {
      summary: { valueType: 'TEXT' },
      notes: { valueType: 'MARKDOWN' },
      liaison: { valueType: 'FULL_NAME' },
      site: { valueType: 'ADDRESS' },
      inbox: { valueType: 'EMAIL' },
      homepage: { valueType: 'URL' },
      hotline: { valueType: 'TELEPHONE' },
      handle: { valueType: 'SOCIAL_HANDLE' },
      tier: { valueType: 'SINGLE_SELECT', typeConfiguration: options('Ocelot tier', 'Basic') },
      tags: { valueType: 'MULTI_SELECT', typeConfiguration: options('Basic', 'Pangolin') },
      dueAt: { valueType: 'DATETIME' },
    };
    const CASES: [valueType: string, field: string, value: unknown, q: string, snippet: string][] = [
      ['TEXT', 'summary', 'Quagga summary line', 'quagga', 'Quagga summary line'],
      ['MARKDOWN', 'notes', 'Some **zebu** notes', 'zebu', 'Some **zebu** notes'],
      ['FULL_NAME', 'liaison', { firstName: 'Xerxes', lastName: 'Tamarind' }, 'tamarind', 'Xerxes Tamarind'],
      ['ADDRESS', 'site', { street: '1 Kinkajou Lane', city: 'Lyon' }, 'kinkajou', '1 Kinkajou Lane Lyon'],
      ['EMAIL', 'inbox', 'desk@jerboa-mail.io', 'jerboa-mail.io', 'desk@jerboa-mail.io'],
      [
        'URL',
        'homepage',
        'https://www.axolotl-site.org/about',
        'axolotl-site.org',
        'https://www.axolotl-site.org/about',
      ],
      ['TELEPHONE', 'hotline', '+33 1 42 68 53 77', '42 68 53 77', '+33142685377'],
      ['SOCIAL_HANDLE', 'handle', '@capybarafan', 'capybarafan', '@capybarafan'],
      ['SINGLE_SELECT', 'tier', 'Ocelot tier', 'ocelot', 'Ocelot tier'],
      ['MULTI_SELECT', 'tags', ['Basic', 'Pangolin'], 'pangolin', 'Pangolin'],
    ];

    beforeAll(async () => {
      const defined = await suite.t.http
        .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types`)
        .set(adminHeaders())
        .send({
          slug: 'specimen',
          label: 'Specimen',
          fields: {
            title: { label: 'Title', valueType: 'TEXT', required: true },
            ...Object.fromEntries(Object.entries(FIELDS).map(([key, field]) => [key, { label: key, ...field }])),
          },
        });
      expect(defined.status).toBe(200);
    });

    it.each(CASES)('%s: the field %s, by its own value', async (_valueType, field, value, q, snippet) => {
      const id = await create('/v1/objects/specimen/values', { title: `Specimen ${field}`, [field]: value });
      const response = await search(`q=${encodeURIComponent(q)}&types=specimen`);
      expect(foundIds(response)).toEqual([id]);
      expect(results(response)[0].matches).toEqual([{ field, snippet }]);
    });

    it('never a field of a type that is not searched, whatever its value reads like', async () => {
      const id = await create('/v1/objects/specimen/values', { title: 'Plan 2031', dueAt: '2031-01-02T00:00:00Z' });
      const response = await search('q=2031&types=specimen');
      expect(foundIds(response)).toEqual([id]);
      expect(results(response)[0].matches).toEqual([{ field: 'title', snippet: 'Plan 2031' }]);
    });

    it('a system MULTI_SELECT by its option label, and every field that matched beside it', async () => {
      const id = await create('/v1/accounts', { $name: 'Gnuvex Robotics', $industry: ['Manufacturing'] });
      const byLabel = results(await search('q=manufacturing&types=account')).find((result) => result.entityId === id);
      expect(byLabel?.matches).toEqual([{ field: '$industry', snippet: 'Manufacturing' }]);
      const both = results(await search('q=gnuvex%20manufacturing&types=account'));
      expect(both.map((result) => result.entityId)).toEqual([id]);
      expect(both[0].matches).toEqual([
        { field: '$name', snippet: 'Gnuvex Robotics' },
        { field: '$industry', snippet: 'Manufacturing' },
      ]);
    });

    it('a custom field of a system type, beside the system ones', async () => {
      const added = await suite.t.http
        .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types/note/fields`)
        .set(adminHeaders())
        .send({ key: 'codename', label: 'Codename', valueType: 'TEXT' });
      expect(added.status).toBe(200);
      const id = await create('/v1/notes', { $title: 'Weekly sync', codename: 'Operation Tapir' });
      const response = await search('q=tapir&types=note');
      expect(foundIds(response)).toEqual([id]);
      expect(results(response)[0].matches).toEqual([{ field: 'codename', snippet: 'Operation Tapir' }]);
    });
  });

  it('a write is findable as soon as it returned, and an update replaces what it matched', async () => {
    const note = await create('/v1/notes', { $title: 'Okapi migration plan' });
    expect(foundIds(await search('q=okapi'))).toEqual([note]);
    const updated = await post(`/v1/notes/${note}`, { fields: { $title: 'Narwhal migration plan' } });
    expect(updated.status).toBe(200);
    expect(foundIds(await search('q=okapi'))).toEqual([]);
    expect(foundIds(await search('q=narwhal'))).toEqual([note]);
  });

  it('never matches another workspace’s records', async () => {
    expect(foundIds(await search('q=acmeflux'))).toEqual([ids.acme]);
    expect(foundIds(await search('q=acmeflux', suite.other.key))).toEqual([ids.other]);
    expect(foundIds(await search('q=quokkamail.io', suite.other.key))).toEqual([]);
  });

  describe('meetings', () => {
    const keys = { creator: '', outsider: '' };
    let meeting: string;

    beforeAll(async () => {
      for (const role of ['creator', 'outsider'] as const) {
        const member = await createMember(suite.t.http, suite.ws.workspaceId);
        keys[role] = (
          await createKey(suite.t.http, suite.ws.workspaceId, member.id, ['meetings:read', 'meetings:create'])
        ).key;
      }
      meeting = await create(
        '/v1/meetings',
        {
          $title: 'Quarterly platypus review',
          $startDate: new Date(Date.now() - 3 * HOUR).toISOString(),
          $endDate: new Date(Date.now() - 2 * HOUR).toISOString(),
          $description: 'The zanzibarite merger stays between us; platypus budget cut',
          $privacySetting: 'METADATA',
        },
        keys.creator,
      );
    });

    it('matches a private meeting’s description only for callers with FULL access to it', async () => {
      const creator = await search('q=zanzibarite', keys.creator);
      expect(foundIds(creator)).toEqual([meeting]);
      expect(results(creator)[0].matches).toEqual([
        { field: '$description', snippet: expect.stringContaining('zanzibarite') },
      ]);
      expect(foundIds(await search('q=zanzibarite', keys.outsider))).toEqual([]);
      // A word of the title and one of the description together: the outsider may not match the second.
      expect(foundIds(await search('q=quarterly%20zanzibarite', keys.outsider))).toEqual([]);
    });

    it('matches it on what its METADATA view shows, and no snippet carries what that view hides', async () => {
      const response = await search('q=platypus', keys.outsider);
      expect(foundIds(response)).toEqual([meeting]);
      const [result] = results(response);
      expect(result.data.accessLevel).toBe('METADATA');
      expect(result.data.fields.$description.value).toBeNull();
      expect(result.matches).toEqual([{ field: '$title', snippet: 'Quarterly platypus review' }]);
      expect(JSON.stringify(result)).not.toMatch(/zanzibarite|budget/);
      const full = results(await search('q=platypus', keys.creator))[0];
      expect(full.matches.map((match) => match.field).sort()).toEqual(['$description', '$title']);
    });

    it('matches a private meeting’s transcript only for callers with FULL access to it, after a replace and a privacy change too', async () => {
      const transcript = (words: string) =>
        uploadFile(suite.t.http, suite.ws.key, { content: `WEBVTT\n\n00:00.000 --> 00:04.000\n<v Ana>${words}\n` });
      const created = await post('/v1/meetings', {
        fields: {
          $title: 'Numbat sync',
          $startDate: new Date(Date.now() - 3 * HOUR).toISOString(),
          $endDate: new Date(Date.now() - 2 * HOUR).toISOString(),
          $privacySetting: 'METADATA',
        },
        relationships: { $transcript: await transcript('The quetzalcoatlite deal closes Friday') },
      });
      expect(created.status).toBe(200);
      const id = created.body.id as string;
      const full = await search('q=quetzalcoatlite');
      expect(foundIds(full)).toEqual([id]);
      expect(results(full)[0].data.accessLevel).toBe('FULL');
      expect(foundIds(await search('q=quetzalcoatlite', keys.outsider))).toEqual([]);
      expect(foundIds(await search('q=numbat%20quetzalcoatlite', keys.outsider))).toEqual([]);
      const outsider = await search('q=numbat', keys.outsider);
      expect(foundIds(outsider)).toEqual([id]);
      expect(results(outsider)[0].matches).toEqual([{ field: '$title', snippet: 'Numbat sync' }]);
      expect(JSON.stringify(outsider.body)).not.toMatch(/quetzalcoatlite|friday/i);
      // The cue timings are no words of the meeting.
      expect(foundIds(await search('q=00%3A04.000'))).not.toContain(id);

      const replaced = await post(`/v1/meetings/${id}`, {
        relationships: { $transcript: { replace: await transcript('Axolotlite only now') } },
      });
      expect(replaced.status).toBe(200);
      expect(foundIds(await search('q=quetzalcoatlite'))).toEqual([]);
      expect(foundIds(await search('q=axolotlite'))).toEqual([id]);

      // Rewriting the meeting's fields keeps its transcript's words, now matched for everyone.
      expect((await post(`/v1/meetings/${id}`, { fields: { $privacySetting: 'FULL' } })).status).toBe(200);
      expect(foundIds(await search('q=axolotlite', keys.outsider))).toEqual([id]);
    });
  });

  describe('scopes', () => {
    let contactsOnly: string;

    beforeAll(async () => {
      contactsOnly = (await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['contacts:read'])).key;
    });

    it('searches by default every type the key may read', async () => {
      expect(foundIds(await search('q=acmeflux', contactsOnly))).toEqual([]);
      expect(foundIds(await search('q=zoe', contactsOnly))).toEqual([ids.zoe]);
    });

    it('refuses a type the key may not read with 403 insufficient_scope', async () => {
      const refused = await search('q=acmeflux&types=contact,account', contactsOnly);
      expectError(refused, 403, 'insufficient_scope');
      expect(refused.body.error.message).toBe(
        'Searching account records requires the scope accounts:read; missing: accounts:read',
      );
      const keyless = (await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['files:read'])).key;
      expectError(await search('q=acmeflux', keyless), 403, 'insufficient_scope');
    });
  });

  describe('parameters', () => {
    it.each([
      ['no q', ''],
      ['an empty q', 'q='],
      ['a q of spaces', 'q=%20%20%20'],
      ['a q of 201 characters', `q=${'a'.repeat(201)}`],
      ['q twice', 'q=a&q=b'],
      ['a q with a NUL character', 'q=a%00b'],
    ])('%s is 400 invalid_parameter q', async (_name, query) => {
      expectError(await search(query), 400, 'invalid_parameter', 'q');
    });

    it.each([
      ['quotes and tsquery operators', `o'brien & !x | y:* <-> (z)`],
      ['backslashes', 'a\\b\\'],
      ['LIKE wildcards', '%_%'],
      ['emoji and other scripts', '🦆 Ελλάδα 東京'],
      ['a very long word', 'x'.repeat(200)],
    ])('q with %s is searched as text, never an error', async (_name, q) => {
      const response = await search(`q=${encodeURIComponent(q)}`);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
    });

    it('takes a q of 200 characters once trimmed', async () => {
      expect((await search(`q=${encodeURIComponent(`  ${'a'.repeat(200)}  `)}`)).status).toBe(200);
    });

    it.each([
      ['an unknown type', 'q=a&types=contact,spaceship', 'types'],
      ['a type that has no records', 'q=a&types=member', 'types'],
      ['a limit out of range', 'q=a&limit=26', 'limit'],
      ['an unknown parameter', 'q=a&sort=score', 'sort'],
      ['a cursor of nothing', 'q=a&cursor=abc', 'cursor'],
    ])('%s is 400 invalid_parameter', async (_name, query, param) => {
      expectError(await search(query), 400, 'invalid_parameter', param);
    });
  });

  describe('paging', () => {
    const notes: string[] = [];

    beforeAll(async () => {
      for (let index = 0; index < 7; index++) {
        notes.push(await create('/v1/notes', { $title: `Pelican ${index}`, $content: 'pelican '.repeat(index + 1) }));
      }
    });

    it('pages through every result best first, none twice, even as the results change between pages', async () => {
      const first = await search('q=pelican&limit=3');
      expect(first.body.totalCount).toBe(7);
      const seen = foundIds(first);
      const scores = results(first).map((result) => result.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      // Writes between pages: one already shown now ranks higher still, a new one would rank first.
      expect((await post(`/v1/notes/${seen[2]}`, { fields: { $content: 'pelican '.repeat(30) } })).status).toBe(200);
      const late = await create('/v1/notes', { $title: 'Pelican pelican', $content: 'pelican '.repeat(40) });
      let cursor: string | null = first.body.nextCursor;
      while (cursor !== null) {
        const page = await search(`q=pelican&cursor=${cursor}`);
        expect(page.status).toBe(200);
        seen.push(...foundIds(page));
        cursor = page.body.nextCursor;
      }
      expect(new Set(seen).size).toBe(seen.length);
      // Written after the first page: left out of this chain (a new search finds it).
      expect([...seen].sort()).toEqual([...notes].sort());
      expect(foundIds(await search('q=pelican&limit=1'))).toEqual([late]);
    });

    it('refuses a cursor whose snapshot PostgreSQL would not read', async () => {
      const first = await search('q=pelican&limit=2');
      const fields = JSON.parse(Buffer.from(first.body.nextCursor, 'base64url').toString('utf8'));
      for (const snapshot of ['10:20:15,12', '20:10:', 'now', 7]) {
        const crafted = Buffer.from(JSON.stringify([...fields.slice(0, 4), snapshot, ...fields.slice(5)])).toString(
          'base64url',
        );
        expectError(await search(`q=pelican&cursor=${crafted}`), 400, 'invalid_parameter', 'cursor');
      }
      const intact = Buffer.from(JSON.stringify(fields)).toString('base64url');
      expect((await search(`q=pelican&cursor=${intact}`)).status).toBe(200);
    });

    it('refuses a cursor beside another q, and without one: q is required, beside a cursor too', async () => {
      const first = await search('q=pelican&limit=2');
      expectError(await search(`q=other&cursor=${first.body.nextCursor}`), 400, 'invalid_parameter', 'cursor');
      const alone = await search(`cursor=${first.body.nextCursor}`);
      expectError(alone, 400, 'invalid_parameter', 'q');
      expect(alone.body.error.message).toBe('q is required');
    });
  });
});

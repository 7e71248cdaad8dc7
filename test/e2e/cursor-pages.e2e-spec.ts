import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { apiSuite } from '../support/api-suite';
import { concurrently, Gate } from '../support/concurrency';
import { expectError } from '../support/errors';
import { createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { idsOf, query } from '../support/records';
import { adminHeaders } from '../support/test-app';

/** Items each route's list holds when a test starts. */
const ITEMS = 6;
const HOUR = 3_600_000;

/** One paged list route, in one workspace. */
interface Listed {
  /** The list's path. */
  path: string;
  /** Items the list holds before any `add` (a workspace's own member). */
  existing: number;
  /** Makes one more item of the list, its newest; answers its id. */
  add(): Promise<string>;
  /** Sets the time the list orders by of the items `ids` to `at` (timestamptz text), as stored. */
  stamp(ids: string[], at: string): Promise<void>;
  /** Another list route of the workspace, to which this one's cursors do not belong. */
  elsewhere: string;
}

interface PagedRoute {
  name: string;
  /** The route in `ws`, holding ITEMS items. */
  prepare(ws: TestWorkspace): Promise<Listed>;
  /** Whether its timestamps can hold microseconds (files are stamped in milliseconds, a constraint keeps them so). */
  microseconds: boolean;
}

describe('cursor pages of every paged list route (docs/api.md §3)', () => {
  const suite = apiSuite();
  const sql = (text: string, values: unknown[]) => suite.t.app.get(DataSource).query(text, values);

  /** GET, checked against the OpenAPI document whatever its status. */
  const get = async (path: string, key: string): Promise<Response> => {
    const response = await suite.get(path, key);
    suite.openapi.assert(response);
    return response;
  };
  const created = async (path: string, body: unknown, key: string): Promise<string> => {
    const response = await suite.post(path, body, key);
    if (response.status !== 200) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.id as string;
  };
  const withQuery = (path: string, pairs: Record<string, string | number>) => `${path}${query(pairs)}`;

  /** The whole list on one page (it holds at most 25 items), with its last-page cursor checked. */
  const everything = async (path: string, key: string): Promise<string[]> => {
    const response = await get(withQuery(path, { limit: 25 }), key);
    expect(response.status).toBe(200);
    expect(response.body.nextCursor).toBeNull();
    expect(response.body.totalCount).toBe(response.body.data.length);
    return idsOf(response);
  };

  /**
   * Reads the page `first` asks for, then follows each nextCursor alone to the last page; `between`
   * runs before each cursor is followed. Every page but the last has a cursor, and every page
   * holds the limit it was read with, but the last.
   */
  const follow = async (
    path: string,
    key: string,
    first: Record<string, string | number>,
    between?: () => Promise<unknown>,
  ) => {
    const pages: Response[] = [await get(withQuery(path, first), key)];
    for (let guard = 0; pages.at(-1)!.status === 200 && pages.at(-1)!.body.nextCursor !== null; guard += 1) {
      if (guard > 50) throw new Error(`${path}: more than 50 pages`);
      await between?.();
      pages.push(await get(withQuery(path, { cursor: pages.at(-1)!.body.nextCursor }), key));
    }
    expect(pages.map((page) => (page.status === 200 ? 200 : [page.status, page.body]))).toEqual(pages.map(() => 200));
    const limit = Number(first.limit ?? 25);
    expect(pages.slice(0, -1).map((page) => page.body.data.length)).toEqual(pages.slice(0, -1).map(() => limit));
    expect(pages.slice(0, -1).every((page) => typeof page.body.nextCursor === 'string')).toBe(true);
    return { pages, ids: pages.flatMap(idsOf), sizes: pages.map((page) => page.body.data.length) };
  };

  const past = (hours: number) => new Date(Date.now() - hours * HOUR).toISOString();
  const stampRecords = (ids: string[], at: string) =>
    // `fields = fields`: the value index's trigger copies created_at again (its own ordering column).
    sql(`UPDATE records SET created_at = $2::timestamptz, fields = fields WHERE id = ANY($1)`, [ids, at]);
  const defineType = async (ws: TestWorkspace, slug: string) => {
    const response = await suite.t.http
      .post(`/admin/v1/workspaces/${ws.workspaceId}/object-types`)
      .set(adminHeaders())
      .send({ slug, label: slug, fields: { title: { label: 'Title', valueType: 'TEXT' } }, relationships: {} });
    if (response.status !== 200) throw new Error(`define ${slug}: ${response.status} ${JSON.stringify(response.body)}`);
  };

  /** A list of `objectType` records; its items are records added to it, one request each. */
  const listMembers = (
    objectType: 'account' | 'contact' | 'opportunity',
    route: string,
    member: string,
  ): PagedRoute => ({
    name: `GET /v1/lists/{id}/${route}`,
    microseconds: true,
    prepare: async (ws) => {
      const newList = () => created('/v1/lists', { fields: { $name: 'Members', $objectType: objectType } }, ws.key);
      const [list, other] = [await newList(), await newList()];
      const account =
        objectType === 'opportunity' ? await created('/v1/accounts', { fields: { $name: 'Owner' } }, ws.key) : '';
      const bodies = {
        account: { fields: { $name: 'Member' } },
        contact: { fields: { $name: { firstName: 'Member' } } },
        opportunity: { fields: { $name: 'Member', $stage: 'LEAD' }, relationships: { $account: account } },
      };
      return {
        path: `/v1/lists/${list}/${route}`,
        existing: 0,
        add: async () => {
          const id = await created(`/v1/${route}`, bodies[objectType], ws.key);
          await created(`/v1/lists/${list}`, { relationships: { [member]: { add: id } } }, ws.key);
          return id;
        },
        stamp: (ids, at) =>
          sql(`UPDATE list_members SET added_at = $2::timestamptz WHERE list_id = $3 AND record_id = ANY($1)`, [
            ids,
            at,
            list,
          ]),
        elsewhere: `/v1/lists/${other}/${route}`,
      };
    },
  });

  const ROUTES: PagedRoute[] = [
    {
      name: 'GET /v1/notes',
      microseconds: true,
      prepare: async (ws) => ({
        path: '/v1/notes',
        existing: 0,
        add: () => created('/v1/notes', { fields: { $title: 'Note' } }, ws.key),
        stamp: stampRecords,
        elsewhere: '/v1/tasks',
      }),
    },
    {
      name: 'GET /v1/objects/{slug} (a custom type)',
      microseconds: true,
      prepare: async (ws) => {
        await defineType(ws, 'milestone');
        await defineType(ws, 'phase');
        return {
          path: '/v1/objects/milestone',
          existing: 0,
          add: () => created('/v1/objects/milestone/values', { fields: { title: 'Milestone' } }, ws.key),
          stamp: stampRecords,
          elsewhere: '/v1/objects/phase',
        };
      },
    },
    {
      name: 'GET /v1/meetings',
      microseconds: true,
      prepare: async (ws) => ({
        path: '/v1/meetings',
        existing: 0,
        add: () =>
          created('/v1/meetings', { fields: { $title: 'Meeting', $startDate: past(2), $endDate: past(1) } }, ws.key),
        stamp: stampRecords,
        elsewhere: '/v1/notes',
      }),
    },
    {
      name: 'GET /v1/files',
      microseconds: false,
      prepare: async (ws) => ({
        path: '/v1/files',
        existing: 0,
        add: () => created('/v1/files', { filename: 'f.txt', mimeType: 'text/plain', sizeBytes: 1 }, ws.key),
        stamp: (ids, at) => sql(`UPDATE files SET created_at = $2::timestamptz WHERE id = ANY($1)`, [ids, at]),
        elsewhere: '/v1/lists',
      }),
    },
    {
      name: 'GET /v1/lists',
      microseconds: true,
      prepare: async (ws) => ({
        path: '/v1/lists',
        existing: 0,
        add: () => created('/v1/lists', { fields: { $name: 'List', $objectType: 'account' } }, ws.key),
        stamp: (ids, at) => sql(`UPDATE lists SET created_at = $2::timestamptz WHERE id = ANY($1)`, [ids, at]),
        elsewhere: '/v1/files',
      }),
    },
    listMembers('account', 'accounts', '$accounts'),
    listMembers('contact', 'contacts', '$contacts'),
    listMembers('opportunity', 'opportunities', '$opportunities'),
    {
      name: 'GET /v1/members',
      microseconds: true,
      prepare: async (ws) => ({
        path: '/v1/members',
        existing: 1,
        add: async () => (await createMember(suite.t.http, ws.workspaceId)).id,
        stamp: (ids, at) => sql(`UPDATE members SET created_at = $2::timestamptz WHERE id = ANY($1)`, [ids, at]),
        elsewhere: '/v1/notes',
      }),
    },
  ];

  describe.each(ROUTES)('$name', (route) => {
    /** A fresh workspace whose list holds ITEMS items: the list, its key, its ids newest first. */
    const fresh = async () => {
      const ws = await createWorkspace(suite.t.http);
      const listed = await route.prepare(ws);
      for (let i = listed.existing; i < ITEMS; i += 1) await listed.add();
      const ids = await everything(listed.path, ws.key);
      expect(ids).toHaveLength(ITEMS);
      return { ws, listed, ids };
    };

    it('answers nextCursor on every page but the last, and null on the last, also when the total is a multiple of the limit', async () => {
      const { ws, listed, ids } = await fresh();
      for (const limit of [1, 2, 3, 4, 5, 6, 7, 25]) {
        const { pages, sizes } = await follow(listed.path, ws.key, { limit });
        expect({ limit, pages: pages.length }).toEqual({ limit, pages: Math.ceil(ITEMS / limit) });
        expect(sizes.at(-1)).toBe(ITEMS - limit * (pages.length - 1));
        expect(pages.at(-1)!.body.nextCursor).toBeNull();
        expect(pages.every((page) => page.body.totalCount === ids.length)).toBe(true);
      }
    });

    it('visits every item once, in the list’s order, following the cursors from the first page or from an offset page', async () => {
      const { ws, listed, ids } = await fresh();
      for (const limit of [1, 2, 4]) expect((await follow(listed.path, ws.key, { limit })).ids).toEqual(ids);
      expect((await follow(listed.path, ws.key, { limit: 2, offset: 1 })).ids).toEqual(ids.slice(1));
    });

    it('neither skips nor repeats items of one timestamp across page boundaries: the id breaks the tie', async () => {
      const { ws, listed, ids } = await fresh();
      // All in one millisecond, then two groups of three: every page boundary of limit 1 to 4 falls inside a tie.
      for (const stamps of [
        [ids, '2025-06-01T12:00:00.123Z'],
        [ids.slice(0, 3), '2025-06-01T12:00:00.456Z'],
      ] as const) {
        await listed.stamp([...stamps[0]], stamps[1]);
        const tied = await everything(listed.path, ws.key);
        expect([...tied].sort()).toEqual([...ids].sort());
        for (const limit of [1, 2, 3, 4]) expect((await follow(listed.path, ws.key, { limit })).ids).toEqual(tied);
      }
      // Ties order by id, descending.
      expect(await everything(listed.path, ws.key)).toEqual([
        ...[...ids.slice(0, 3)].sort().reverse(),
        ...[...ids.slice(3)].sort().reverse(),
      ]);
    });

    if (route.microseconds) {
      it('compares timestamps to the microsecond they are stored with, not the millisecond shown', async () => {
        const { ws, listed, ids } = await fresh();
        // Within one millisecond, the oldest id gets the latest microsecond: the order by time is the reverse of the id order.
        for (const [index, id] of ids.entries())
          await listed.stamp([id], `2025-06-01T12:00:00.123${String(index + 1).padStart(3, '0')}Z`);
        const ordered = await everything(listed.path, ws.key);
        expect(ordered).toEqual([...ids].reverse());
        for (const limit of [1, 2, 4]) expect((await follow(listed.path, ws.key, { limit })).ids).toEqual(ordered);
      });
    }

    it('visits every item that existed at the first page exactly once while others are being created', async () => {
      const { ws, listed, ids } = await fresh();
      let following = true;
      const made: string[] = [];
      // The writer starts once the first page is read: an item it made before would exist at the first page.
      const firstPage = new Gate();
      const writer = async () => {
        await firstPage.pass();
        while (following) made.push(await listed.add());
      };
      const reader = async () => {
        try {
          // Two more items before each cursor is followed, besides the writer's.
          return await follow(listed.path, ws.key, { limit: 2 }, () => {
            firstPage.open();
            return concurrently(2, () => listed.add().then((id) => made.push(id)));
          });
        } finally {
          following = false;
          firstPage.open();
        }
      };
      const [{ ids: visited }] = await Promise.all([reader(), writer()]);
      expect(made.length).toBeGreaterThanOrEqual(2 * (ITEMS / 2 - 1));
      expect(visited).toEqual(ids);
    });

    it('refuses offset beside a cursor, 0 included (400 invalid_parameter, param offset)', async () => {
      const { ws, listed } = await fresh();
      const { nextCursor } = (await get(withQuery(listed.path, { limit: 2 }), ws.key)).body;
      for (const offset of [0, 2]) {
        expectError(
          await get(withQuery(listed.path, { cursor: nextCursor, offset }), ws.key),
          400,
          'invalid_parameter',
          'offset',
        );
      }
    });

    it('keeps the cursor’s limit alone or beside the same limit, and refuses another (param cursor)', async () => {
      const { ws, listed, ids } = await fresh();
      const { nextCursor } = (await get(withQuery(listed.path, { limit: 2 }), ws.key)).body;
      const pairings: Record<string, string | number>[] = [
        { cursor: nextCursor },
        { cursor: nextCursor, limit: 2 },
        { limit: '02', cursor: nextCursor },
      ];
      for (const pairs of pairings) {
        const response = await get(withQuery(listed.path, pairs), ws.key);
        expect(idsOf(response)).toEqual(ids.slice(2, 4));
        expect(response.body.totalCount).toBe(ITEMS);
      }
      for (const limit of [1, 3, 25]) {
        expectError(
          await get(withQuery(listed.path, { cursor: nextCursor, limit }), ws.key),
          400,
          'invalid_parameter',
          'cursor',
        );
      }
      expectError(
        await get(withQuery(listed.path, { cursor: nextCursor, limit: 0 }), ws.key),
        400,
        'invalid_parameter',
        'limit',
      );
    });

    it('refuses a cursor of another list route (400 invalid_parameter, param cursor)', async () => {
      const { ws, listed } = await fresh();
      const { nextCursor } = (await get(withQuery(listed.path, { limit: 2 }), ws.key)).body;
      expectError(
        await get(withQuery(listed.elsewhere, { cursor: nextCursor }), ws.key),
        400,
        'invalid_parameter',
        'cursor',
      );
      // The same list, written otherwise: letter case of the route's own words, a trailing slash.
      const respelled = await suite.get(
        withQuery(`${listed.path.replace('/v1/', '/V1/')}/`, { cursor: nextCursor }),
        ws.key,
      );
      expect({ status: respelled.status, items: respelled.body.data?.length }).toEqual({ status: 200, items: 2 });
    });

    it('refuses malformed cursors with 400 invalid_parameter (param cursor), never a 500', async () => {
      const { ws, listed } = await fresh();
      const { nextCursor } = (await get(withQuery(listed.path, { limit: 2 }), ws.key)).body;
      const payload = JSON.parse(Buffer.from(nextCursor, 'base64url').toString('utf8')) as Record<string, unknown>;
      const encoded = (value: unknown) =>
        Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
      const [at, id] = payload.after as [string, string];
      const malformed: [string, string][] = [
        ['garbage', '!!not a cursor!!'],
        ['empty', ''],
        ['base64 of text that is not JSON', encoded('not json at all')],
        ['base64 of bytes that are not UTF-8', Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url')],
        ['padded base64', `${nextCursor}==`],
        ['cut short by a character', nextCursor.slice(0, -1)],
        ['JSON null', encoded(null)],
        ['a JSON array', encoded([at, id])],
        ['a JSON object of another shape', encoded({ position: 2 })],
        ['the cursor with one more member', encoded({ ...payload, offset: 2 })],
        ['the cursor without its key', encoded({ ...payload, after: undefined })],
        ['a limit out of range', encoded({ ...payload, limit: 26 })],
        ['a limit that is not an integer', encoded({ ...payload, limit: 2.5 })],
        ['an absurd timestamp', encoded({ ...payload, after: ['9999-99-99T99:99:99+00:00', id] })],
        ['a day that does not exist', encoded({ ...payload, after: ['2025-02-29T00:00:00+00:00', id] })],
        [
          'a year PostgreSQL reads but the service never writes',
          encoded({ ...payload, after: ['275760-01-01T00:00:00+00:00', id] }),
        ],
        ['words for a timestamp', encoded({ ...payload, after: ['yesterday', id] })],
        ['an id of no id shape', encoded({ ...payload, after: [at, "x') OR true; --"] })],
        ['a number for the id', encoded({ ...payload, after: [at, 7] })],
        ['filters of another shape', encoded({ ...payload, filters: { $title: 'x' } })],
        ['10 KB of text', 'A'.repeat(10_240)],
        ['10 KB of a well-formed cursor', encoded({ ...payload, route: `${listed.path}${'/x'.repeat(5000)}` })],
      ];
      const answers = [];
      for (const [name, cursor] of malformed) {
        const response = await get(withQuery(listed.path, { cursor }), ws.key);
        answers.push([name, response.status, response.body.error?.code, response.body.error?.param]);
      }
      expect(answers).toEqual(malformed.map(([name]) => [name, 400, 'invalid_parameter', 'cursor']));
      expectError(
        await get(`${listed.path}?cursor=${nextCursor}&cursor=${nextCursor}`, ws.key),
        400,
        'invalid_parameter',
        'cursor',
      );
      expectError(await get(`${listed.path}?cursor[]=${nextCursor}`, ws.key), 400, 'invalid_parameter', 'cursor[]');
    });

    it('pages only the caller’s own workspace with a cursor read in another one', async () => {
      // The other workspace's items first: older than every item of the cursor's workspace.
      const other = await createWorkspace(suite.t.http);
      const theirs = await route.prepare(other);
      for (let i = theirs.existing; i < ITEMS; i += 1) await theirs.add();
      const theirIds = await everything(theirs.path, other.key);
      const { ws, listed, ids } = await fresh();
      const { nextCursor } = (await get(withQuery(listed.path, { limit: 2 }), ws.key)).body;
      const response = await get(withQuery(listed.path, { cursor: nextCursor }), other.key);
      if (theirs.path === listed.path) {
        expect(idsOf(response)).toEqual(theirIds.slice(0, 2));
        expect(response.body.totalCount).toBe(ITEMS);
        const { ids: visited } = await follow(listed.path, other.key, { cursor: nextCursor, limit: 2 });
        expect(visited).toEqual(theirIds);
        expect(visited.filter((id) => ids.includes(id))).toEqual([]);
      } else {
        // A list of one workspace is not found in another, cursor or not.
        expectError(response, 404, 'not_found');
      }
    });
  });

  describe('GET /v1/notes with filters', () => {
    let ws: TestWorkspace;
    let few: string;
    let many: string;
    const notes: string[] = [];

    beforeAll(async () => {
      ws = await createWorkspace(suite.t.http);
      few = await created('/v1/accounts', { fields: { $name: 'Few' } }, ws.key);
      many = await created('/v1/accounts', { fields: { $name: 'Many' } }, ws.key);
      // 14 notes: every other titled Match; 10 linked to `many` (the walk of linkedPageSql runs for
      // it), 2 to `few` (its linked notes are fetched and sorted), 2 to none.
      for (let i = 0; i < 14; i += 1) {
        const account = i === 3 || i === 10 ? few : i < 12 ? many : undefined;
        const body = {
          fields: { $title: `${i % 2 === 0 ? 'Match' : 'Other'} ${i}` },
          relationships: account ? { $account: account } : {},
        };
        notes.push(await created('/v1/notes', body, ws.key));
      }
    });

    const FILTERS: [string, () => Record<string, string>][] = [
      ['an indexed filter, $title[startsWith]', () => ({ '$title[startsWith]': 'Match' })],
      ['a relationship filter of many links, $account=', () => ({ $account: many })],
      ['a relationship filter of few links, $account=', () => ({ $account: few })],
      ['two filters', () => ({ '$title[startsWith]': 'Match', $account: many })],
      ['a negated filter', () => ({ '$title[-startsWith]': 'Match' })],
    ];

    it.each(FILTERS)(
      '%s: visits every match once, also across ties, the cursors sent alone',
      async (_name, filters) => {
        const matches = idsOf(await get(withQuery('/v1/notes', { ...filters(), limit: 25 }), ws.key));
        expect(matches.length).toBeGreaterThanOrEqual(2);
        expect(matches.length).toBeLessThan(notes.length);
        for (const limit of [1, 2, 3])
          expect((await follow('/v1/notes', ws.key, { ...filters(), limit })).ids).toEqual(matches);
        await stampRecords(notes, '2025-06-01T12:00:00.123Z');
        try {
          const tied = idsOf(await get(withQuery('/v1/notes', { ...filters(), limit: 25 }), ws.key));
          expect(tied).toEqual([...matches].sort().reverse());
          for (const limit of [1, 2, 3])
            expect((await follow('/v1/notes', ws.key, { ...filters(), limit })).ids).toEqual(tied);
        } finally {
          for (const [index, id] of notes.entries())
            await stampRecords([id], new Date(Date.parse('2025-06-01T12:00:00Z') + index).toISOString());
        }
      },
    );

    it.each(FILTERS)(
      '%s: takes the cursor alone or beside its own filters, in any order, and refuses others (param cursor)',
      async (_name, filters) => {
        const first = await get(withQuery('/v1/notes', { ...filters(), limit: 1 }), ws.key);
        const { nextCursor, totalCount } = first.body;
        const second = idsOf(await get(withQuery('/v1/notes', { ...filters(), limit: 1, offset: 1 }), ws.key));
        const reversed = Object.fromEntries(Object.entries(filters()).reverse());
        for (const pairs of [
          { cursor: nextCursor },
          { ...filters(), cursor: nextCursor },
          { cursor: nextCursor, ...reversed },
        ]) {
          const response = await get(withQuery('/v1/notes', pairs), ws.key);
          expect({ ids: idsOf(response), totalCount: response.body.totalCount }).toEqual({ ids: second, totalCount });
        }
        const refused: Record<string, string>[] = [
          { ...filters(), '$title[startsWith]': 'Other' },
          { ...filters(), $account: few === filters().$account ? many : few },
          { ...filters(), '$title[startsWith]': 'Match', '$title[-startsWith]': 'Match 1' },
          { 'createdAt[greaterThan]': '2020-01-01T00:00:00Z' },
        ];
        for (const other of refused) {
          expectError(
            await get(withQuery('/v1/notes', { ...other, cursor: nextCursor }), ws.key),
            400,
            'invalid_parameter',
            'cursor',
          );
        }
        // A cursor of the unfiltered list is refused beside filters, and a filtered list's cursor differs from it.
        const unfiltered = (await get(withQuery('/v1/notes', { limit: 1 }), ws.key)).body.nextCursor;
        expect(unfiltered).not.toBe(nextCursor);
        expectError(
          await get(withQuery('/v1/notes', { ...filters(), cursor: unfiltered }), ws.key),
          400,
          'invalid_parameter',
          'cursor',
        );
      },
    );
  });

  it('GET /v1/members with a filter: the cursor alone keeps it', async () => {
    const ws = await createWorkspace(suite.t.http);
    for (let i = 0; i < 4; i += 1)
      await createMember(suite.t.http, ws.workspaceId, { role: i % 2 === 0 ? 'member' : 'admin' });
    const filter = { $role: 'member' };
    const matches = idsOf(await get(withQuery('/v1/members', { ...filter, limit: 25 }), ws.key));
    expect(matches).toHaveLength(2);
    expect((await follow('/v1/members', ws.key, { ...filter, limit: 1 })).ids).toEqual(matches);
  });
});

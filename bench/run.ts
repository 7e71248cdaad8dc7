/**
 * `npm run bench`: seeds workspaces in bulk SQL, starts the built service against them with rate
 * limits raised, drives it with autocannon at 32 connections and prints requests/s and p50/p99
 * latency per scenario, then the query plans of the list queries:
 *  - notes: 1,000 and 100,000 notes linked to 1,000 accounts (records core);
 *  - a custom type with 100,000 records, filtered by TEXT startsWith, NUMBER greaterThan and
 *    SINGLE_SELECT equal, and a list with 10,000 accounts (custom objects and lists);
 *  - 50,000 meetings with mixed privacy (meetings).
 * BENCH_DATABASE_URL selects an existing database (its name must say "bench").
 */
import autocannon from 'autocannon';
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import { benchDatabase, BenchWorkspace, freePort, seedWorkspace, startService, stopService } from './support';

const CONNECTIONS = 32;
const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);

/** Ids keep the prefix_ULID shape: 26 Crockford characters made from a batch digit and the row number. */
function ulidSql(prefix: string, batch: number, seq: string): string {
  return `'${prefix}_01${batch}' || lpad(upper(to_hex(${seq})), 23, '0')`;
}

async function countRecords(db: Client, workspaceId: string, objectType: string, count: number): Promise<void> {
  await db.query(`INSERT INTO record_counts (workspace_id, object_type, count) VALUES ($1, $2, $3)`, [
    workspaceId,
    objectType,
    count,
  ]);
}

/** `notes` notes spread over 1,000 accounts. */
async function seedNotes(db: Client, notes: number, batch: number) {
  const workspace = await seedWorkspace(db, `bench ${notes} notes`);
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${ulidSql('acc', batch, 'g')}, $1, 'account', jsonb_build_object('$name', 'Account ' || g), now() - interval '1 day'
       FROM generate_series(1, 1000) g`,
    [workspace.id],
  );
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${ulidSql('note', batch, 'g')}, $1, 'note',
            jsonb_build_object('$title', 'Note ' || g, '$content', repeat('text ', 20)),
            now() - (g || ' milliseconds')::interval
       FROM generate_series(1, $2::int) g`,
    [workspace.id, notes],
  );
  await db.query(
    `INSERT INTO record_links (workspace_id, source_id, link, target_id)
     SELECT $1, ${ulidSql('note', batch, 'g')}, 'note:$account', ${ulidSql('acc', batch, '(g % 1000) + 1')}
       FROM generate_series(1, $2::int) g
     UNION ALL
     SELECT $1, ${ulidSql('note', batch, 'g')}, 'note:$createdBy', $3 FROM generate_series(1, $2::int) g`,
    [workspace.id, notes, workspace.memberId],
  );
  await countRecords(db, workspace.id, 'account', 1000);
  await countRecords(db, workspace.id, 'note', notes);
  return {
    ...workspace,
    noteId: (await db.query(`SELECT ${ulidSql('note', batch, '500')} AS id`)).rows[0].id as string,
    accountId: (await db.query(`SELECT ${ulidSql('acc', batch, '8')} AS id`)).rows[0].id as string,
  };
}

const TIERS = 50;

/** A custom type `item` (title TEXT, size NUMBER, tier SINGLE_SELECT of 50), and a list of 10,000 accounts. */
async function seedCustomTypeAndList(db: Client, records: number, batch: number) {
  const workspace = await seedWorkspace(db, 'bench custom objects');
  await db.query(`INSERT INTO object_types (workspace_id, slug, label) VALUES ($1, 'item', 'Item')`, [workspace.id]);
  const options = Array.from({ length: TIERS }, (_, i) => ({ id: `tier${i}`, label: `Tier ${i}`, description: null }));
  for (const [key, valueType, configuration] of [
    ['title', 'TEXT', {}],
    ['size', 'NUMBER', {}],
    ['tier', 'SINGLE_SELECT', { options }],
  ] as const) {
    await db.query(
      `INSERT INTO field_definitions (id, workspace_id, object_type, key, label, value_type, type_configuration)
       VALUES ($1, $2, 'item', $3, $3, $4, $5)`,
      [newId('field'), workspace.id, key, valueType, JSON.stringify(configuration)],
    );
  }
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${ulidSql('rec', batch, 'g')}, $1, 'item',
            jsonb_build_object('title', 'Item ' || g, 'size', g, 'tier', 'tier' || (g % ${TIERS})),
            now() - (g || ' milliseconds')::interval
       FROM generate_series(1, $2::int) g`,
    [workspace.id, records],
  );
  await countRecords(db, workspace.id, 'item', records);
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${ulidSql('acc', batch, 'g')}, $1, 'account', jsonb_build_object('$name', 'Member ' || g), now()
       FROM generate_series(1, 10000) g`,
    [workspace.id],
  );
  await countRecords(db, workspace.id, 'account', 10_000);
  const listId = newId('list');
  await db.query(`INSERT INTO lists (id, workspace_id, name, object_type, created_at) VALUES ($1, $2, 'Big', 'account', now())`, [
    listId,
    workspace.id,
  ]);
  await db.query(
    `INSERT INTO list_members (list_id, record_id, added_at)
     SELECT $1, ${ulidSql('acc', batch, 'g')}, now() - (g || ' milliseconds')::interval FROM generate_series(1, 10000) g`,
    [listId],
  );
  return { ...workspace, listId };
}

/** 50,000 meetings: every other one METADATA, a tenth of those with the caller as an attendee. */
async function seedMeetings(db: Client, meetings: number, batch: number): Promise<BenchWorkspace> {
  const workspace = await seedWorkspace(db, 'bench meetings');
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${ulidSql('mtg', batch, 'g')}, $1, 'meeting',
            jsonb_build_object('$title', 'Meeting ' || g, '$startDate', to_char(now() - interval '2 hours', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              '$endDate', to_char(now() - interval '1 hour', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              '$description', 'Agenda ' || g,
              '$privacySetting', CASE WHEN g % 2 = 0 THEN 'METADATA' ELSE 'FULL' END,
              '$attendeeEmails', CASE WHEN g % 20 = 0 THEN '["bench@example.com"]'::jsonb ELSE '["someone@example.org"]'::jsonb END),
            now() - (g || ' milliseconds')::interval
       FROM generate_series(1, $2::int) g`,
    [workspace.id, meetings],
  );
  await countRecords(db, workspace.id, 'meeting', meetings);
  return workspace;
}

type BenchRequest = { method?: 'GET' | 'POST'; path: string; body?: unknown };

function drive(port: number, workspace: BenchWorkspace, request: BenchRequest, duration: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}${request.path}`,
    method: request.method ?? 'GET',
    connections: CONNECTIONS,
    duration,
    headers: { authorization: `Bearer ${workspace.key}`, 'service-version': '2026-03-01', 'content-type': 'application/json' },
    body: request.body ? JSON.stringify(request.body) : undefined,
  });
}

async function scenario(name: string, port: number, workspace: BenchWorkspace, request: BenchRequest): Promise<void> {
  const result = await drive(port, workspace, request, DURATION_SECONDS);
  console.log(
    `${name.padEnd(52)} ${String(Math.round(result.requests.average)).padStart(6)} req/s   p50 ${String(result.latency.p50).padStart(4)} ms   p99 ${String(result.latency.p99).padStart(4)} ms   non-2xx ${result.non2xx + result.errors}`,
  );
}

const filter = (key: string, value: string) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`;

async function explain(db: Client, name: string, sql: string, params: unknown[]): Promise<void> {
  const plan = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  console.log(`\n-- EXPLAIN ANALYZE: ${name}\n${plan.rows.map((row) => row['QUERY PLAN']).join('\n')}`);
}

async function main(): Promise<void> {
  const database = await benchDatabase();
  const db = new Client({ connectionString: database.url });
  await db.connect();
  console.log('seeding: 1,000 and 100,000 notes, 100,000 custom records, a list of 10,000, 50,000 meetings…');
  const small = await seedNotes(db, 1_000, 1);
  const large = await seedNotes(db, 100_000, 2);
  const custom = await seedCustomTypeAndList(db, 100_000, 3);
  const meetings = await seedMeetings(db, 50_000, 4);
  await db.query('VACUUM ANALYZE');
  const port = await freePort();
  const service = await startService(database.url, port, {
    RATE_LIMIT_READ: '1000000',
    RATE_LIMIT_WRITE: '1000000',
    RATE_LIMIT_SEARCH: '1000000',
  });
  try {
    // Warm the service (JIT, pools, caches) so that the first scenario is not measured cold.
    await drive(port, small, { path: '/v1/notes' }, 5);
    console.log(`\n${CONNECTIONS} connections, ${DURATION_SECONDS}s per scenario, after a 5 s warm-up`);
    await scenario('GET /v1/notes (first page, 1,000 notes)', port, small, { path: '/v1/notes' });
    await scenario('GET /v1/notes (first page, 100,000 notes)', port, large, { path: '/v1/notes' });
    await scenario('GET /v1/notes?$account=… (100,000 notes)', port, large, { path: `/v1/notes?${filter('$account', large.accountId)}` });
    await scenario('GET /v1/notes?$title[startsWith]=Note 9999', port, large, { path: `/v1/notes?${filter('$title[startsWith]', 'Note 9999')}` });
    await scenario('GET /v1/notes/{id}', port, large, { path: `/v1/notes/${large.noteId}` });
    await scenario('POST /v1/notes', port, large, {
      method: 'POST',
      path: '/v1/notes',
      body: { fields: { $title: 'Bench', $content: 'x' }, relationships: { $account: large.accountId } },
    });
    await scenario('GET /v1/objects/item?title[startsWith]=Item 9999', port, custom, { path: `/v1/objects/item?${filter('title[startsWith]', 'Item 9999')}` });
    await scenario('GET /v1/objects/item?size[greaterThan]=99000', port, custom, { path: `/v1/objects/item?${filter('size[greaterThan]', '99000')}` });
    await scenario('GET /v1/objects/item?tier=tier7', port, custom, { path: `/v1/objects/item?${filter('tier', 'tier7')}` });
    await scenario('GET /v1/lists/{id}/accounts?offset=5000 (10,000 members)', port, custom, { path: `/v1/lists/${custom.listId}/accounts?offset=5000` });
    await scenario('GET /v1/meetings (50,000, mixed privacy)', port, meetings, { path: '/v1/meetings' });
    await scenario('GET /v1/meetings?$title=Meeting 4000', port, meetings, { path: `/v1/meetings?${filter('$title', 'Meeting 4000')}` });

    await explain(db, 'notes, first page (100,000)', `SELECT r.id FROM records r WHERE r.workspace_id = $1 AND r.object_type = 'note' ORDER BY r.created_at DESC, r.id DESC LIMIT 25`, [large.id]);
    await explain(
      db,
      'notes filtered by $account',
      `SELECT count(*) FROM records r WHERE r.workspace_id = $1 AND r.object_type = 'note'
         AND EXISTS (SELECT 1 FROM record_links l WHERE l.source_id = r.id AND l.link = 'note:$account' AND l.target_id = $2)`,
      [large.id, large.accountId],
    );
    // A single indexed filter is counted from record_values alone (RecordsService.list).
    const indexedCount = (condition: string) =>
      `SELECT count(*) FROM (SELECT DISTINCT v.record_id, v.created_at FROM record_values v
         WHERE v.workspace_id = $1 AND v.object_type = 'item' AND ${condition}) m`;
    await explain(db, 'item title startsWith (count)', indexedCount(`v.field_key = 'title' AND v.text_value LIKE 'Item 9999%'`), [custom.id]);
    await explain(db, 'item size greaterThan (count)', indexedCount(`v.field_key = 'size' AND v.number_value > 99000`), [custom.id]);
    await explain(db, 'item tier equal (count)', indexedCount(`v.field_key = 'tier' AND v.text_value = 'tier7'`), [custom.id]);
    await explain(
      db,
      'list members page',
      `SELECT record_id FROM list_members WHERE list_id = $1 ORDER BY added_at DESC, record_id DESC LIMIT 25 OFFSET 5000`,
      [custom.listId],
    );
  } finally {
    await stopService(service);
    await db.end();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

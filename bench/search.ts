/**
 * Search at scale (docs/api.md §14): BENCH_SEARCH_RECORDS records (default 1,000,000) across
 * contacts, accounts and notes in one workspace, seeded 50,000 a statement through the same
 * trigger as every write (8,000 records/s on a quiet machine, where single creates through the
 * API make 600/s);
 * then the p50 of a selective query (≤ 100 matches) and of a one-letter prefix that matches 10 % of
 * the records, creates with the search trigger against creates without it, and the size of the
 * search documents and their indexes per 1,000,000 records.
 *
 * `npm run bench` runs it after the other sections (bench/run.ts); `node dist/bench/search.js`
 * runs it alone, on its own database.
 */
import autocannon from 'autocannon';
import { Client } from 'pg';
import { BenchServer, BenchWorkspace, runBench, seedWorkspace, startBenchDatabase, startService } from './support';

const RECORDS = Number(process.env.BENCH_SEARCH_RECORDS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Records per seeding statement: the search trigger builds their documents together, from its transition table. */
const SEED_BATCH = 50_000;
/** Notes carry `k<g mod this>`: the word the selective query looks for is held by RECORDS / this (80) notes. */
const SELECTIVE_SPREAD = Math.max(5, Math.round(RECORDS / 80));
/** The trigger that builds a created record's search document (SearchStatementTriggers migration). */
const TRIGGER = 'search_documents_insert';

export interface SearchBudget {
  goal: string;
  measured: number;
  target: number;
  atLeast: boolean;
}

/**
 * Record g is a contact (g mod 5 in 0, 1), an account (2) or a note (3, 4); every tenth one holds a
 * word starting with `z` (`zed<g>`), the others `ken<g>`.
 */
async function seed(db: Client, workspace: BenchWorkspace): Promise<void> {
  for (let from = 1; from <= RECORDS; from += SEED_BATCH) {
    const to = Math.min(RECORDS, from + SEED_BATCH - 1);
    await db.query(
      `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
       SELECT CASE g % 5 WHEN 0 THEN 'con' WHEN 1 THEN 'con' WHEN 2 THEN 'acc' ELSE 'note' END
                || '_01S' || lpad(upper(to_hex(g)), 23, '0'),
              $1,
              CASE g % 5 WHEN 0 THEN 'contact' WHEN 1 THEN 'contact' WHEN 2 THEN 'account' ELSE 'note' END,
              CASE g % 5
                WHEN 0 THEN jsonb_build_object('$name', jsonb_build_object('firstName', 'Ada', 'lastName', tok),
                                               '$email', jsonb_build_array('user' || g || '@example' || (g % 1000) || '.com'),
                                               '$phone', jsonb_build_array('+1415' || lpad(g::text, 7, '0')))
                WHEN 1 THEN jsonb_build_object('$name', jsonb_build_object('firstName', 'Bo', 'lastName', tok))
                WHEN 2 THEN jsonb_build_object('$name', 'Account ' || tok, '$website', jsonb_build_array('https://www.site' || g || '.example'))
                ELSE jsonb_build_object('$title', 'Note ' || g || ' k' || (g % $4) || ' ' || tok, '$content', 'notes about the quarterly plan')
              END,
              now() - (g || ' milliseconds')::interval
         FROM generate_series($2::int, $3::int) g, LATERAL (SELECT CASE WHEN g % 10 = 0 THEN 'zed' ELSE 'ken' END || g AS tok) t`,
      [workspace.id, from, to, SELECTIVE_SPREAD],
    );
  }
}

async function p50(
  server: BenchServer,
  workspace: BenchWorkspace,
  path: string,
  connections = 4,
): Promise<{ p50: number; perSecond: number; errors: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections,
    duration: SECONDS,
    timeout: 60,
    headers: { authorization: `Bearer ${workspace.key}`, 'service-version': '2026-03-01' },
    requests: [{ method: 'GET', path }],
  });
  return { p50: result.latency.p50, perSecond: result.requests.average, errors: result.non2xx + result.errors };
}

async function creates(server: BenchServer, workspace: BenchWorkspace): Promise<number> {
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections: 32,
    duration: SECONDS,
    timeout: 60,
    headers: {
      authorization: `Bearer ${workspace.key}`,
      'service-version': '2026-03-01',
      'content-type': 'application/json',
    },
    requests: [
      {
        method: 'POST',
        path: '/v1/notes',
        body: JSON.stringify({ fields: { $title: 'Bench note Zoë Müller', $content: 'Written by the bench' } }),
      },
    ],
  });
  if (result.non2xx + result.errors > 0)
    throw new Error(`creates failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

/** Measures search on `db` through `service`, seeding its own workspaces; prints and returns its budgets. */
export async function searchAtScale(db: Client, service: BenchServer): Promise<SearchBudget[]> {
  const workspace = await seedWorkspace(db, `bench search ${RECORDS}`);
  const writes = await seedWorkspace(db, 'bench search creates');
  const seeding = Date.now();
  await seed(db, workspace);
  // Every table the seeding filled: an autovacuum of a million inserts would otherwise run through
  // the measures below, on one of the two cores.
  await db.query('VACUUM ANALYZE records, record_values, search_documents');
  const seconds = (Date.now() - seeding) / 1000;
  console.log(
    `\nsearch: ${RECORDS.toLocaleString('en')} records seeded in ${seconds.toFixed(0)} s (${Math.round(RECORDS / seconds)}/s, both triggers)`,
  );

  // The largest n below the spread with n mod 5 = 3: notes hold `k<n>` (note g has g mod 5 of 3 or 4),
  // and no other word has it as a prefix (10 n is past the spread).
  const selective = `k${SELECTIVE_SPREAD - 1 - ((((SELECTIVE_SPREAD - 4) % 5) + 5) % 5)}`;
  const [{ matches }] = (
    await db.query(
      `SELECT count(*)::int AS matches FROM search_documents WHERE workspace_id = $1 AND words @@ to_tsquery('simple', $2 || ':*')`,
      [workspace.id, selective],
    )
  ).rows;
  const [{ prefixed }] = (
    await db.query(
      `SELECT count(*)::int AS prefixed FROM search_documents WHERE workspace_id = $1 AND words @@ to_tsquery('simple', 'z:*')`,
      [workspace.id],
    )
  ).rows;
  const selectiveRun = await p50(service, workspace, `/v1/search?q=${selective}`);
  const prefixRun = await p50(service, workspace, '/v1/search?q=z');
  // No word matches `adq`: names are then searched by similarity.
  const typoRun = await p50(service, workspace, `/v1/search?q=${encodeURIComponent('Adq ken1235')}`);
  const phoneRun = await p50(service, workspace, '/v1/search?q=0004242');

  const withTrigger: number[] = [];
  const without: number[] = [];
  const createsWithout = async () => {
    await db.query(`ALTER TABLE records DISABLE TRIGGER ${TRIGGER}`);
    try {
      without.push(await creates(service, writes));
    } finally {
      await db.query(`ALTER TABLE records ENABLE TRIGGER ${TRIGGER}`);
    }
  };
  // Each arm goes first in every other round, so that neither has the quieter machine of the start.
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 1) await createsWithout();
    withTrigger.push(await creates(service, writes));
    if (round % 2 === 0) await createsWithout();
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const [{ bytes, documents }] = (
    await db.query(
      `SELECT pg_total_relation_size('search_documents')::bigint AS bytes, (SELECT count(*) FROM search_documents)::int AS documents`,
    )
  ).rows;
  const perMillion = (Number(bytes) / documents) * 1_000_000;

  console.log(`search queries (4 connections, ${SECONDS} s each):`);
  for (const [name, run] of [
    [`selective q=${selective} (${matches} matches)`, selectiveRun],
    [`one-letter prefix q=z (${prefixed} matches, ${((prefixed / RECORDS) * 100).toFixed(0)} %)`, prefixRun],
    ['a name with a typo, q=Adq ken1235', typoRun],
    ['telephone digits q=0004242', phoneRun],
  ] as const) {
    console.log(
      `  ${name}: p50 ${run.p50} ms, ${run.perSecond.toFixed(0)} req/s${run.errors ? `, ${run.errors} failed` : ''}`,
    );
  }
  console.log(
    `creates (32 connections): ${mean(withTrigger).toFixed(0)}/s with search maintenance, ${mean(without).toFixed(0)}/s without ` +
      `(${(mean(withTrigger) / mean(without)).toFixed(2)}×)`,
  );
  console.log(
    `search_documents with its indexes: ${(Number(bytes) / 2 ** 20).toFixed(0)} MiB for ${documents.toLocaleString('en')} documents, ` +
      `${(perMillion / 2 ** 20).toFixed(0)} MiB per 1,000,000 records${documents < 1_000_000 ? ' (extrapolated linearly)' : ''}`,
  );
  return [
    {
      goal: `search: selective query p50 ms (${RECORDS.toLocaleString('en')} records)`,
      measured: selectiveRun.p50,
      target: 30,
      atLeast: false,
    },
    {
      goal: `search: one-letter prefix p50 ms (${RECORDS.toLocaleString('en')} records)`,
      measured: prefixRun.p50,
      target: 200,
      atLeast: false,
    },
    {
      goal: 'search: creates with maintenance / without',
      measured: mean(withTrigger) / mean(without),
      target: 0.85,
      atLeast: true,
    },
  ];
}

if (require.main === module) {
  runBench(async (folder) => {
    const database = await startBenchDatabase(folder);
    const db = new Client({ connectionString: database.url });
    await db.connect();
    const service = await startService(folder, database.url, {
      RATE_LIMIT_READ: '1000000',
      RATE_LIMIT_WRITE: '1000000',
      RATE_LIMIT_SEARCH: '1000000',
    });
    for (const budget of await searchAtScale(db, service)) {
      const met = budget.atLeast ? budget.measured >= budget.target : budget.measured <= budget.target;
      console.log(
        `${budget.goal}: ${budget.measured.toFixed(2)} (${budget.atLeast ? '≥' : '≤'} ${budget.target}) ${met ? 'PASS' : 'MISS'}`,
      );
    }
    await db.end();
  });
}

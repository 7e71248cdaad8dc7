/**
 * The bare baselines that `npm run bench` holds the service against: a pg Pool doing the SQL work a
 * request needs and nothing more, behind either bare `node:http` (BASELINE=http) or bare Express
 * with `express.json()` and its router (BASELINE=express), the HTTP layer the service's stack puts
 * under Nest. Every request looks its API key up by SHA-256 (the service's join: api_keys → members
 * → workspaces, not revoked), then:
 *  - GET  /v1/notes/{id}  the service's read of a record: the row and its links in one statement;
 *  - POST /v1/notes       the service's statement of a create: the record, its slot of the type's
 *                         count and its creator's link, with its change event (the envelope
 *                         answered) and webhook outbox row, under the same locks (the
 *                         service notifies other instances after the commit, batched, on a
 *                         session of its own: the bare servers have no other instance to tell);
 *                         `?events=none` leaves the event out, to measure what events cost;
 *  - POST /v1/notes/{id}  UPDATE … RETURNING (the given fields merged into the stored ones);
 *  - GET  /v1/notes       a 25-row page and count(*), optionally filtered by `$title[startsWith]`
 *                         (served by BASELINE_INDEXES) or `$account` (record_links' target index).
 * A record is answered in the service's entity envelope (docs/api.md §7). Every statement is named,
 * so each connection parses and plans it once. Started by the bench as `node baseline-server.js`
 * with DATABASE_URL, PORT and BASELINE.
 */
import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Pool } from 'pg';
import { newId } from '../src/common/ids';
import { escapeLike } from '../src/records/field-types/sql';

/** The obvious index for a prefix filter on the title; the bench creates it in its own database. */
export const BASELINE_INDEXES = [
  `CREATE INDEX bench_baseline_title_prefix_idx ON records (workspace_id, object_type, (fields ->> '$title') text_pattern_ops)`,
];

export type BaselineKind = 'http' | 'express';

const ROW = `id, fields, external_id, created_at, updated_at`;
const NOTE_LINKS = ['note:$account', 'note:$opportunity', 'note:$createdBy'];
// The service's record read (RecordsRepository.findMany for a note).
const LINKS = `(SELECT coalesce(json_agg(json_build_array(l.side, l.link, l.other) ORDER BY l.created_at, l.other), '[]'::json)
   FROM (SELECT 'source' AS side, link, target_id AS other, created_at FROM record_links
          WHERE source_id = r.id AND link = ANY($3)) l) AS links`;
const NOTES = `FROM records r WHERE r.workspace_id = $1 AND r.object_type = 'note'`;
const FILTERS: Record<string, string> = {
  none: '',
  title: `AND r.fields ->> '$title' LIKE $2`,
  account: `AND EXISTS (SELECT 1 FROM record_links l WHERE l.target_id = $2 AND l.link = 'note:$account' AND l.source_id = r.id)`,
};

/** Whom a key names: its workspace and its member. */
interface Caller {
  workspaceId: string;
  memberId: string;
}

class HttpError extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

interface NoteRow {
  id: string;
  fields: Record<string, unknown>;
  external_id: string | null;
  created_at: Date;
  updated_at: Date | null;
  links?: [string, string, string][];
}

const RELATIONSHIPS = [
  ['$account', 'has_many', 'account'],
  ['$opportunity', 'has_many', 'opportunity'],
  ['$createdBy', 'has_one', 'member'],
] as const;

/** A note in the service's entity envelope: every field and relationship of the type present. */
function envelope(row: NoteRow) {
  const links = row.links ?? [];
  return {
    id: row.id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at?.toISOString() ?? null,
    httpLink: null,
    fields: {
      $title: { value: row.fields.$title ?? null, valueType: 'TEXT' },
      $content: { value: row.fields.$content ?? null, valueType: 'MARKDOWN' },
    },
    relationships: Object.fromEntries(
      RELATIONSHIPS.map(([key, cardinality, objectType]) => [
        key,
        { cardinality, objectType, values: links.filter(([, link]) => link === `note:${key}`).map(([, , id]) => id) },
      ]),
    ),
    externalId: row.external_id,
  };
}

/** What each request asks of PostgreSQL, whichever HTTP layer received it. */
function operations(pool: Pool) {
  const query = async <Row>(name: string, text: string, values: unknown[]) =>
    (await pool.query({ name, text, values })).rows as Row[];
  const one = (rows: NoteRow[]) => {
    if (rows.length === 0) throw new HttpError(404);
    return envelope(rows[0]);
  };
  const fieldsOf = (body: unknown) => {
    const fields = (body as { fields?: unknown } | undefined)?.fields;
    if (typeof fields !== 'object' || fields === null) throw new HttpError(400);
    return fields as Record<string, unknown>;
  };

  return {
    async callerOf(authorization: string | undefined): Promise<Caller> {
      const key = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1] ?? '';
      // The columns the service reads for its scopes, roles and definitions cache.
      const [row] = await query<{ workspace_id: string; member_id: string }>(
        'key',
        `SELECT k.id, k.workspace_id, k.member_id, k.scopes, m.role, m.email, w.metadata_version
           FROM api_keys k JOIN members m ON m.id = k.member_id JOIN workspaces w ON w.id = k.workspace_id
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        [createHash('sha256').update(key).digest('hex')],
      );
      if (!row) throw new HttpError(401);
      return { workspaceId: row.workspace_id, memberId: row.member_id };
    },
    async get({ workspaceId }: Caller, id: string) {
      return one(await query('get', `SELECT ${ROW}, ${LINKS} ${NOTES} AND r.id = $2`, [workspaceId, id, NOTE_LINKS]));
    },
    // The service's create of a note outside a transaction (RecordsRepository.insertRecorded): the
    // record, its slot of the type's count, its creator's link and, unless `withEvent` is false,
    // its change event (the note's envelope) with the webhook outbox's row.
    async create({ workspaceId, memberId }: Caller, body: unknown, withEvent: boolean) {
      const fields = fieldsOf(body);
      const made = envelope({
        id: newId('note'),
        fields,
        external_id: null,
        created_at: new Date(),
        updated_at: null,
        links: [['source', 'note:$createdBy', memberId]],
      });
      const values = [made.id, workspaceId, JSON.stringify(fields), made.createdAt, memberId];
      const writes = `WITH creation AS (SELECT pg_advisory_xact_lock_shared(hashtextextended('creation:' || $2 || ':note', 0))),
           record AS (
             INSERT INTO records (id, workspace_id, object_type, fields, created_at)
             SELECT $1, $2, 'note', $3::jsonb, $4::timestamptz FROM creation RETURNING id),
           free_slot AS (
             SELECT slot FROM record_counts WHERE workspace_id = $2 AND object_type = 'note'
              ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED),
           counted AS (
             INSERT INTO record_counts (workspace_id, object_type, slot, count)
             SELECT $2, 'note', coalesce((SELECT slot FROM free_slot), floor(random() * 32768)::int), 1 FROM record
             ON CONFLICT (workspace_id, object_type, slot) DO UPDATE SET count = record_counts.count + 1),
           linked AS (
             INSERT INTO record_links (workspace_id, source_id, link, target_id)
             SELECT $2, record.id, 'note:$createdBy', $5 FROM record)`;
      if (!withEvent) {
        await query('create-without-event', `${writes} SELECT 1 FROM record`, values);
        return made;
      }
      await query(
        'create',
        `${writes},
           recorded AS (
             INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data)
             SELECT nextval('event_positions'), $6, $2, 'note.created', 'note', $1, date_trunc('milliseconds', clock_timestamp()), $7::json
               FROM (SELECT pg_advisory_xact_lock_shared(hashtextextended('events:' || $2, 0))) appending
             RETURNING id, type),
           following AS (
             INSERT INTO webhook_outbox (workspace_id, event_ids, types, written_at, due_at)
             SELECT $2, ARRAY[$6], ARRAY['note.created'], statement_timestamp(), statement_timestamp() + make_interval(secs => 1)
              WHERE EXISTS (SELECT 1 FROM webhook_endpoints w
                             WHERE w.workspace_id = $2 AND w.status = 'ENABLED' AND ('*' = ANY(w.event_types) OR 'note.created' = ANY(w.event_types))))
           SELECT 1 FROM record`,
        [...values, newId('event'), JSON.stringify(made)],
      );
      return made;
    },
    async update({ workspaceId }: Caller, id: string, body: unknown) {
      return one(
        await query(
          'update',
          `UPDATE records SET fields = fields || $3::jsonb, updated_at = now()
            WHERE id = $1 AND workspace_id = $2 AND object_type = 'note' RETURNING ${ROW}`,
          [id, workspaceId, JSON.stringify(fieldsOf(body))],
        ),
      );
    },
    async list({ workspaceId }: Caller, parameters: URLSearchParams) {
      const title = parameters.get('$title[startsWith]');
      const account = parameters.get('$account');
      const [filter, values] =
        title !== null
          ? ['title', [workspaceId, `${escapeLike(title)}%`]]
          : account !== null
            ? ['account', [workspaceId, account]]
            : ['none', [workspaceId]];
      const limit = Math.min(Number(parameters.get('limit') ?? 25), 25);
      const offset = Number(parameters.get('offset') ?? 0);
      const page = await query<NoteRow>(
        `page-${filter}`,
        `SELECT ${ROW} ${NOTES} ${FILTERS[filter]}
          ORDER BY r.created_at DESC, r.id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, limit, offset],
      );
      const [{ count }] = await query<{ count: number }>(
        `count-${filter}`,
        `SELECT count(*)::int AS count ${NOTES} ${FILTERS[filter]}`,
        values,
      );
      return { object: 'list', data: page.map(envelope), totalCount: count };
    },
  };
}

type Operations = ReturnType<typeof operations>;

function failure(error: unknown): { status: number; payload: unknown } {
  const status = error instanceof HttpError ? error.status : 500;
  // A load generator that stops cuts requests short: not worth a word.
  if (status === 500 && (error as { code?: string }).code !== 'ECONNRESET') console.error(error);
  return { status, payload: { error: { status } } };
}

/** Bare node:http: the path matched by hand, the body read and parsed by hand. */
function nodeHttpHandler(sql: Operations) {
  async function body(request: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }

  async function handle(request: IncomingMessage): Promise<unknown> {
    const url = new URL(request.url ?? '/', 'http://baseline');
    if (url.pathname === '/health/ready') return { status: 'ok' };
    const id = /^\/v1\/notes\/([^/]+)$/.exec(url.pathname)?.[1];
    if (url.pathname !== '/v1/notes' && !id) throw new HttpError(404);
    const caller = await sql.callerOf(request.headers.authorization);
    if (request.method === 'POST' && !id)
      return sql.create(caller, await body(request), url.searchParams.get('events') !== 'none');
    if (request.method === 'POST') return sql.update(caller, id!, await body(request));
    if (id) return sql.get(caller, id);
    return sql.list(caller, url.searchParams);
  }

  return async (request: IncomingMessage, response: ServerResponse) => {
    let status = 200;
    let payload: unknown;
    try {
      payload = await handle(request);
    } catch (error) {
      ({ status, payload } = failure(error));
    }
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
  };
}

/** Bare Express: its router, `express.json()`, `res.json`, an error handler; nothing of Nest. */
function expressApp(sql: Operations) {
  const app = express();
  // The service's answers carry neither (docs/api.md §1): the same bytes out.
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(express.json());
  const route =
    (answer: (request: Request, caller: Caller) => Promise<unknown>) =>
    async (request: Request, response: Response, next: NextFunction) => {
      try {
        response.json(await answer(request, await sql.callerOf(request.headers.authorization)));
      } catch (error) {
        next(error);
      }
    };
  app.get('/health/ready', (_request, response) => void response.json({ status: 'ok' }));
  app.get(
    '/v1/notes/:id',
    route((request, caller) => sql.get(caller, request.params.id as string)),
  );
  app.post(
    '/v1/notes',
    route((request, caller) => sql.create(caller, request.body, request.query.events !== 'none')),
  );
  app.post(
    '/v1/notes/:id',
    route((request, caller) => sql.update(caller, request.params.id as string, request.body)),
  );
  app.get(
    '/v1/notes',
    route((request, caller) => sql.list(caller, new URL(request.url, 'http://baseline').searchParams)),
  );
  app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => {
    const { status, payload } = failure(error);
    response.status(status).json(payload);
  });
  return app;
}

if (require.main === module) {
  // The service's pool (src/database/data-source-options.ts): 20 connections, pg's idle timeout.
  const sql = operations(new Pool({ connectionString: process.env.DATABASE_URL, max: 20 }));
  const port = Number(process.env.PORT);
  if ((process.env.BASELINE as BaselineKind) === 'express') expressApp(sql).listen(port, '127.0.0.1');
  else {
    const handle = nodeHttpHandler(sql);
    createServer((request, response) => void handle(request, response)).listen(port, '127.0.0.1');
  }
}

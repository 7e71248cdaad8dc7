/**
 * The bare baseline that `npm run bench` holds the service against: node:http and a pg Pool doing
 * the SQL work a request needs and nothing more. Every request looks its API key up by SHA-256
 * (the service's join: api_keys → members → workspaces, not revoked), then:
 *  - GET  /v1/notes/{id}  the record row;
 *  - POST /v1/notes       INSERT … RETURNING, and its change event in the same statement (under the
 *                         workspace's append lock, as the service appends); `?events=none` leaves
 *                         the event out, to measure what events cost;
 *  - POST /v1/notes/{id}  UPDATE … RETURNING (the given fields merged into the stored ones);
 *  - GET  /v1/notes       a 25-row page and count(*), optionally filtered by `$title[startsWith]`
 *                         (served by BASELINE_INDEXES) or `$account` (record_links' target index).
 * Every statement is named, so each connection parses and plans it once. Started by the bench as
 * `node baseline-server.js` with DATABASE_URL and PORT.
 */
import { createHash } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { newId } from '../src/common/ids';
import { escapeLike } from '../src/records/field-types/sql';

/** The obvious index for a prefix filter on the title; the bench creates it in its own database. */
export const BASELINE_INDEXES = [
  `CREATE INDEX bench_baseline_title_prefix_idx ON records (workspace_id, object_type, (fields ->> '$title') text_pattern_ops)`,
];

const ROW = `id, fields, external_id AS "externalId", created_at AS "createdAt", updated_at AS "updatedAt"`;
const NOTES = `FROM records r WHERE r.workspace_id = $1 AND r.object_type = 'note'`;
const FILTERS: Record<string, string> = {
  none: '',
  title: `AND r.fields ->> '$title' LIKE $2`,
  account: `AND EXISTS (SELECT 1 FROM record_links l WHERE l.target_id = $2 AND l.link = 'note:$account' AND l.source_id = r.id)`,
};

class HttpError extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

function serve(pool: Pool) {
  const query = async (name: string, text: string, values: unknown[]) =>
    (await pool.query({ name, text, values })).rows;

  async function workspaceOf(request: IncomingMessage): Promise<string> {
    const key = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    // The columns the service reads for its scopes, roles and definitions cache.
    const [row] = await query(
      'key',
      `SELECT k.workspace_id, k.member_id, k.scopes, m.role, m.email, w.metadata_version
         FROM api_keys k JOIN members m ON m.id = k.member_id JOIN workspaces w ON w.id = k.workspace_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [createHash('sha256').update(key).digest('hex')],
    );
    if (!row) throw new HttpError(401);
    return row.workspace_id;
  }

  async function body(request: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { fields?: unknown };
    if (typeof parsed.fields !== 'object' || parsed.fields === null) throw new HttpError(400);
    return parsed.fields as Record<string, unknown>;
  }

  async function handle(request: IncomingMessage): Promise<unknown> {
    const url = new URL(request.url ?? '/', 'http://baseline');
    if (url.pathname === '/health/ready') return { status: 'ok' };
    const id = /^\/v1\/notes\/([^/]+)$/.exec(url.pathname)?.[1];
    if (url.pathname !== '/v1/notes' && !id) throw new HttpError(404);
    const workspaceId = await workspaceOf(request);
    let rows: unknown[];
    if (request.method === 'POST' && !id && url.searchParams.get('events') === 'none') {
      rows = await query(
        'create-without-event',
        `INSERT INTO records (id, workspace_id, object_type, fields, created_at) VALUES ($1, $2, 'note', $3, now()) RETURNING ${ROW}`,
        [newId('note'), workspaceId, JSON.stringify(await body(request))],
      );
    } else if (request.method === 'POST' && !id) {
      rows = await query(
        'create',
        `WITH record AS (
           INSERT INTO records (id, workspace_id, object_type, fields, created_at) VALUES ($1, $2, 'note', $3, now()) RETURNING ${ROW}),
         recorded AS (
           INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data)
           SELECT nextval('event_positions'), $4, $2, 'note.created', 'note', r.id, clock_timestamp(), row_to_json(r)
             FROM (SELECT pg_advisory_xact_lock_shared(hashtextextended('events:' || $2, 0))) appending, record r)
         SELECT * FROM record`,
        [newId('note'), workspaceId, JSON.stringify(await body(request)), newId('event')],
      );
    } else if (request.method === 'POST') {
      rows = await query(
        'update',
        `UPDATE records SET fields = fields || $3::jsonb, updated_at = now()
          WHERE id = $1 AND workspace_id = $2 AND object_type = 'note' RETURNING ${ROW}`,
        [id, workspaceId, JSON.stringify(await body(request))],
      );
    } else if (id) {
      rows = await query('get', `SELECT ${ROW} ${NOTES} AND r.id = $2`, [workspaceId, id]);
    } else {
      const title = url.searchParams.get('$title[startsWith]');
      const account = url.searchParams.get('$account');
      const [filter, values] =
        title !== null
          ? ['title', [workspaceId, `${escapeLike(title)}%`]]
          : account !== null
            ? ['account', [workspaceId, account]]
            : ['none', [workspaceId]];
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 25), 25);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const page = await query(
        `page-${filter}`,
        `SELECT ${ROW} ${NOTES} ${FILTERS[filter]}
          ORDER BY r.created_at DESC, r.id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, limit, offset],
      );
      const [{ count }] = await query(
        `count-${filter}`,
        `SELECT count(*)::int AS count ${NOTES} ${FILTERS[filter]}`,
        values,
      );
      return { object: 'list', data: page, totalCount: count };
    }
    if (rows.length === 0) throw new HttpError(404);
    return rows[0];
  }

  return async (request: IncomingMessage, response: ServerResponse) => {
    let status = 200;
    let payload: unknown;
    try {
      payload = await handle(request);
    } catch (error) {
      status = error instanceof HttpError ? error.status : 500;
      payload = { error: { status } };
      // A load generator that stops cuts requests short: not worth a word.
      if (status === 500 && (error as { code?: string }).code !== 'ECONNRESET') console.error(error);
    }
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
  };
}

if (require.main === module) {
  // The service's pool (src/database/data-source-options.ts): 20 connections, pg's idle timeout.
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  const handle = serve(pool);
  createServer((request, response) => void handle(request, response)).listen(Number(process.env.PORT), '127.0.0.1');
}

/**
 * The limit arm of the import bench (bench/batch-writes.ts): what PostgreSQL itself can insert.
 * The rows the service writes for an import of contacts, written by set-based SQL on one
 * connection with no HTTP and no service: each chunk one transaction of one statement that makes
 * the records (the value index and search document by their triggers, as always), their counter,
 * their links to an account, their `contact.created` events, and the accounts they change, each
 * with its `updatedAt` moved and its `account.updated` event holding its contacts' ids (the
 * statement's own links are not visible to it: they are added from its input).
 */
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import { newRecordId } from '../src/records/record-ids';
import type { BenchWorkspace } from './support';

/** Contacts per statement: ten of the service's batch calls. */
const CHUNK = 1000;

/** A contact to import: its externalId, fields document, and the account it links. */
export interface ImportedContact {
  externalId: string;
  fields: Record<string, unknown>;
  account: string;
}

/**
 * The data of a `contact.created` event as the service writes it: `template`, one contact's event
 * data (the service's answer), with that contact's id, externalId and fields replaced.
 */
function eventData(template: Record<string, unknown>, id: string, contact: ImportedContact): string {
  return JSON.stringify({ ...template, id, externalId: contact.externalId, fields: contact.fields });
}

const STATEMENT = `
  WITH n AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                  AS n(id, fields, external_id, account, event_id, data)),
  made AS (
    INSERT INTO records (id, workspace_id, object_type, fields, external_id, created_at)
    SELECT n.id, $1, 'contact', n.fields::jsonb, n.external_id, now() FROM n
    RETURNING id),
  counted AS (
    INSERT INTO record_counts (workspace_id, object_type, slot, count)
    SELECT $1, 'contact', 0, count(*) FROM made
    ON CONFLICT (workspace_id, object_type, slot) DO UPDATE SET count = record_counts.count + excluded.count),
  linked AS (
    INSERT INTO record_links (workspace_id, source_id, link, target_id)
    SELECT $1, n.id, 'contact:$account', n.account FROM n),
  marked AS (SELECT pg_advisory_xact_lock_shared(hashtextextended('events:' || $1, 0))),
  created AS (
    INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data, changes, member_id)
    SELECT nextval('event_positions'), n.event_id, $1, 'contact.created', 'contact', n.id, clock_timestamp(), n.data::json, NULL, NULL
      FROM marked, n),
  accounts AS (
    UPDATE records a SET updated_at = now() WHERE a.id IN (SELECT DISTINCT account FROM n) RETURNING a.id)
  INSERT INTO events (position, id, workspace_id, type, entity_type, entity_id, occurred_at, data, changes, member_id)
  SELECT nextval('event_positions'), 'evt_' || md5(a.id || clock_timestamp()::text), $1, 'account.updated', 'account', a.id, clock_timestamp(),
         json_build_object('id', a.id, 'relationships', json_build_object('$contact', json_build_object('values',
           (SELECT coalesce(json_agg(c.id), '[]') FROM (
              SELECT l.source_id AS id FROM record_links l WHERE l.target_id = a.id AND l.link = 'contact:$account'
              UNION ALL SELECT n.id FROM n WHERE n.account = a.id) c)))),
         '{"fields":[],"relationships":["$contact"]}', NULL
    FROM marked, accounts a`;

/** Imports `contacts` into the workspace, CHUNK a transaction, on `db`: the rows a second. */
export async function importAtTheLimit(
  db: Client,
  workspace: BenchWorkspace,
  contacts: ImportedContact[],
  template: Record<string, unknown>,
): Promise<number> {
  const started = process.hrtime.bigint();
  for (let start = 0; start < contacts.length; start += CHUNK) {
    const chunk = contacts.slice(start, start + CHUNK);
    const ids = chunk.map(() => newRecordId('contact'));
    await db.query('BEGIN');
    await db.query(STATEMENT, [
      workspace.id,
      ids,
      chunk.map((contact) => JSON.stringify(contact.fields)),
      chunk.map((contact) => contact.externalId),
      chunk.map((contact) => contact.account),
      chunk.map(() => newId('event')),
      chunk.map((contact, index) => eventData(template, ids[index], contact)),
    ]);
    await db.query('COMMIT');
  }
  return contacts.length / (Number(process.hrtime.bigint() - started) / 1e9);
}

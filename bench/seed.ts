/**
 * Bulk SQL seeding for the bench. Rows go through the same tables, constraints and triggers as the
 * service's writes (the record_values trigger fills the value index), and record_counts is set to
 * the exact counts. Seeded ids keep the prefix_ULID shape: 26 Crockford characters made from a
 * batch digit (one per workspace) and the row number.
 */
import { Client } from 'pg';
import { newId } from '../src/common/ids';
import { BenchWorkspace, seedWorkspace } from './support';

function idSql(prefix: string, batch: number, seq: string): string {
  return `'${prefix}_01${batch}' || lpad(upper(to_hex(${seq})), 23, '0')`;
}

/** The id that idSql gives row `seq`. */
export function seededId(prefix: string, batch: number, seq: number): string {
  return `${prefix}_01${batch}${seq.toString(16).toUpperCase().padStart(23, '0')}`;
}

async function setCount(db: Client, workspaceId: string, objectType: string, count: number): Promise<void> {
  await db.query(`INSERT INTO record_counts (workspace_id, object_type, slot, count) VALUES ($1, $2, 0, $3)`, [
    workspaceId,
    objectType,
    count,
  ]);
}

export interface NotesWorkspace extends BenchWorkspace {
  notes: number;
  /** A second member, author of one note in a hundred; the key's member wrote the rest. */
  colleagueId: string;
  batch: number;
}

/** Each account holds this many notes, whatever the workspace's size. */
export const NOTES_PER_ACCOUNT = 10;

/**
 * `notes` notes ("Note 1" newest … "Note n"), note g linked to account ((g − 1) mod accounts) + 1
 * of notes / 10 accounts, and written by the key's member but every hundredth by a colleague.
 */
export async function seedNotes(db: Client, notes: number, batch: number): Promise<NotesWorkspace> {
  const workspace = await seedWorkspace(db, `bench ${notes} notes`);
  const colleagueId = newId('member');
  await db.query(
    `INSERT INTO members (id, workspace_id, email, role) VALUES ($1, $2, 'colleague@example.com', 'member')`,
    [colleagueId, workspace.id],
  );
  const accounts = Math.ceil(notes / NOTES_PER_ACCOUNT);
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${idSql('acc', batch, 'g')}, $1, 'account', jsonb_build_object('$name', 'Account ' || g), now() - interval '1 day'
       FROM generate_series(1, $2::int) g`,
    [workspace.id, accounts],
  );
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${idSql('note', batch, 'g')}, $1, 'note',
            jsonb_build_object('$title', 'Note ' || g, '$content', repeat('text ', 20)),
            now() - (g || ' milliseconds')::interval
       FROM generate_series(1, $2::int) g`,
    [workspace.id, notes],
  );
  await db.query(
    `INSERT INTO record_links (workspace_id, source_id, link, target_id)
     SELECT $1, ${idSql('note', batch, 'g')}, 'note:$account', ${idSql('acc', batch, '(g - 1) % $3 + 1')}
       FROM generate_series(1, $2::int) g
     UNION ALL
     SELECT $1, ${idSql('note', batch, 'g')}, 'note:$createdBy', CASE WHEN g % 100 = 0 THEN $5 ELSE $4 END
       FROM generate_series(1, $2::int) g`,
    [workspace.id, notes, accounts, workspace.memberId, colleagueId],
  );
  await setCount(db, workspace.id, 'account', accounts);
  await setCount(db, workspace.id, 'note', notes);
  return { ...workspace, notes, colleagueId, batch };
}

const TIERS = 50;

/** A custom type `item` (title TEXT, size NUMBER, tier SINGLE_SELECT of 50), and a list of `members` accounts. */
export async function seedCustomTypeAndList(db: Client, records: number, members: number, batch: number) {
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
     SELECT ${idSql('rec', batch, 'g')}, $1, 'item',
            jsonb_build_object('title', 'Item ' || g, 'size', g, 'tier', 'tier' || (g % ${TIERS})),
            now() - (g || ' milliseconds')::interval
       FROM generate_series(1, $2::int) g`,
    [workspace.id, records],
  );
  await setCount(db, workspace.id, 'item', records);
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${idSql('acc', batch, 'g')}, $1, 'account', jsonb_build_object('$name', 'Member ' || g), now()
       FROM generate_series(1, $2::int) g`,
    [workspace.id, members],
  );
  await setCount(db, workspace.id, 'account', members);
  const listId = newId('list');
  await db.query(
    `INSERT INTO lists (id, workspace_id, name, object_type, created_at) VALUES ($1, $2, 'Big', 'account', now())`,
    [listId, workspace.id],
  );
  await db.query(
    `INSERT INTO list_members (list_id, record_id, added_at, workspace_id)
     SELECT $1, ${idSql('acc', batch, 'g')}, now() - (g || ' milliseconds')::interval, $3 FROM generate_series(1, $2::int) g`,
    [listId, members, workspace.id],
  );
  return { ...workspace, listId };
}

/** Meetings: every other one METADATA, a tenth of those with the caller as an attendee. */
export async function seedMeetings(db: Client, meetings: number, batch: number): Promise<BenchWorkspace> {
  const workspace = await seedWorkspace(db, 'bench meetings');
  await db.query(
    `INSERT INTO records (id, workspace_id, object_type, fields, created_at)
     SELECT ${idSql('mtg', batch, 'g')}, $1, 'meeting',
            jsonb_build_object('$title', 'Meeting ' || g, '$startDate', to_char(now() - interval '2 hours', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              '$endDate', to_char(now() - interval '1 hour', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              '$description', 'Agenda ' || g,
              '$privacySetting', CASE WHEN g % 2 = 0 THEN 'METADATA' ELSE 'FULL' END,
              '$attendeeEmails', CASE WHEN g % 20 = 0 THEN '["bench@example.com"]'::jsonb ELSE '["someone@example.org"]'::jsonb END),
            now() - (g || ' milliseconds')::interval
       FROM generate_series(1, $2::int) g`,
    [workspace.id, meetings],
  );
  await setCount(db, workspace.id, 'meeting', meetings);
  return workspace;
}

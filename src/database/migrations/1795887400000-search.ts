import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search (docs/api.md §14): one search document per record, kept by a trigger on `records` in the
 * write's own transaction, so a record is findable as soon as its write returned and no write path
 * (one record or many in one statement) can forget it.
 *
 * The trigger reads each field's value type to know what to index: custom fields from
 * `field_definitions`, system fields from `search_system_fields`, a snapshot of the system catalogue
 * (system-types.ts) and of the fields a METADATA reader of a meeting sees (meetings.service.ts);
 * search-system-fields.spec.ts fails when the code and this snapshot part.
 *
 * A document holds:
 * - `words`: TEXT, MARKDOWN, FULL_NAME, ADDRESS, SOCIAL_HANDLE values and option labels, unaccented
 *   and lowercased (the `simple` configuration: no stemming, no stop words, any language);
 * - `hidden_words`: a meeting's fields that its METADATA view shows as null, every kind of value,
 *   matched only for callers with FULL access to the meeting;
 * - `names`: `$title`, `$name` and FULL_NAME values, for trigram similarity (typos);
 * - `fragments`: emails, URL hosts (as url-hosts.ts keys them) and telephone digits, one a line,
 *   for substring matches through a trigram index;
 * - `written_by`: the transaction that wrote it, by which a chain of search pages leaves out what
 *   its first page could not see (SearchRepository).
 */
export const SEARCH_SYSTEM_FIELDS: readonly {
  objectType: string;
  key: string;
  valueType: string;
  options?: { id: string; label: string }[];
  shownAtMetadata?: boolean;
}[] = [
  { objectType: 'note', key: '$title', valueType: 'TEXT' },
  { objectType: 'note', key: '$content', valueType: 'MARKDOWN' },
  { objectType: 'task', key: '$title', valueType: 'TEXT' },
  { objectType: 'task', key: '$status', valueType: 'SINGLE_SELECT' },
  { objectType: 'task', key: '$description', valueType: 'MARKDOWN' },
  { objectType: 'task', key: '$dueAt', valueType: 'DATETIME' },
  { objectType: 'account', key: '$name', valueType: 'TEXT' },
  { objectType: 'account', key: '$website', valueType: 'URL' },
  { objectType: 'account', key: '$primaryAddress', valueType: 'ADDRESS' },
  {
    objectType: 'account',
    key: '$industry',
    valueType: 'MULTI_SELECT',
    options: [
      'Agriculture',
      'Construction',
      'Education',
      'Energy',
      'Finance',
      'Healthcare',
      'Hospitality',
      'Manufacturing',
      'Media',
      'Nonprofit',
      'Professional services',
      'Public sector',
      'Real estate',
      'Retail',
      'Software',
      'Telecommunications',
      'Transportation',
    ].map((label, index) => ({ id: `opt_industry_${index + 1}`, label })),
  },
  { objectType: 'account', key: '$headcount', valueType: 'SINGLE_SELECT' },
  { objectType: 'account', key: '$linkedIn', valueType: 'SOCIAL_HANDLE' },
  { objectType: 'account', key: '$twitter', valueType: 'SOCIAL_HANDLE' },
  { objectType: 'contact', key: '$name', valueType: 'FULL_NAME' },
  { objectType: 'contact', key: '$email', valueType: 'EMAIL' },
  { objectType: 'contact', key: '$phone', valueType: 'TELEPHONE' },
  { objectType: 'opportunity', key: '$name', valueType: 'TEXT' },
  { objectType: 'opportunity', key: '$stage', valueType: 'SINGLE_SELECT' },
  { objectType: 'opportunity', key: '$amount', valueType: 'CURRENCY' },
  { objectType: 'opportunity', key: '$closeDate', valueType: 'DATETIME' },
  { objectType: 'meeting', key: '$title', valueType: 'TEXT', shownAtMetadata: true },
  { objectType: 'meeting', key: '$startDate', valueType: 'DATETIME', shownAtMetadata: true },
  { objectType: 'meeting', key: '$endDate', valueType: 'DATETIME', shownAtMetadata: true },
  { objectType: 'meeting', key: '$attendeeEmails', valueType: 'EMAIL', shownAtMetadata: true },
  { objectType: 'meeting', key: '$description', valueType: 'MARKDOWN' },
  { objectType: 'meeting', key: '$meetingUrl', valueType: 'URL', shownAtMetadata: true },
  { objectType: 'meeting', key: '$organizerEmail', valueType: 'EMAIL', shownAtMetadata: true },
  { objectType: 'meeting', key: '$privacySetting', valueType: 'SINGLE_SELECT', shownAtMetadata: true },
];

const EXTENSIONS = ['pg_trgm', 'unaccent'];

export class Search1795887400000 implements MigrationInterface {
  name = 'Search1795887400000';

  async up(q: QueryRunner): Promise<void> {
    for (const extension of EXTENSIONS) await createExtension(q, extension);
    const unaccentSchema = await schemaOf(q, 'unaccent');
    const trgmSchema = await schemaOf(q, 'pg_trgm');
    // Immutable (unaccent() itself is only STABLE: its dictionary could change), so that indexes and
    // stored documents may use it; the dictionary is named with its schema for the same reason.
    await q.query(`
      CREATE FUNCTION search_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      AS $$ SELECT lower(${unaccentSchema}.unaccent('${unaccentSchema}.unaccent'::regdictionary, $1)) $$`);
    await q.query(`
      CREATE TABLE search_system_fields (
        object_type text NOT NULL,
        key text NOT NULL,
        value_type text NOT NULL,
        options jsonb,
        shown_at_metadata boolean NOT NULL DEFAULT false,
        PRIMARY KEY (object_type, key)
      )`);
    for (const field of SEARCH_SYSTEM_FIELDS) {
      await q.query(`INSERT INTO search_system_fields VALUES ($1, $2, $3, $4, $5)`, [
        field.objectType,
        field.key,
        field.valueType,
        field.options ? JSON.stringify(field.options) : null,
        field.shownAtMetadata ?? false,
      ]);
    }
    await q.query(`
      CREATE TABLE search_documents (
        record_id text PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
        workspace_id text NOT NULL,
        object_type text NOT NULL,
        words tsvector NOT NULL,
        hidden_words tsvector NOT NULL,
        names text NOT NULL,
        fragments text NOT NULL,
        written_by xid8 NOT NULL
      )`);
    await q.query(`CREATE INDEX search_documents_words_idx ON search_documents USING gin (words)`);
    await q.query(
      `CREATE INDEX search_documents_hidden_words_idx ON search_documents USING gin (hidden_words) WHERE object_type = 'meeting'`,
    );
    await q.query(
      `CREATE INDEX search_documents_names_idx ON search_documents USING gin (names ${trgmSchema}.gin_trgm_ops)`,
    );
    await q.query(
      `CREATE INDEX search_documents_fragments_idx ON search_documents USING gin (fragments ${trgmSchema}.gin_trgm_ops)`,
    );
    // Each indexed value of a record, with how it is searched. A meeting's field that METADATA
    // access does not show (custom ones included) is hidden, whatever its type.
    await q.query(`
      CREATE FUNCTION search_values(record_workspace_id text, record_object_type text, record_fields jsonb)
      RETURNS TABLE (kind text, value text, is_name boolean, hidden boolean)
      LANGUAGE sql STABLE
      AS $$
        SELECT CASE WHEN t.value_type IN ('EMAIL', 'URL', 'TELEPHONE') THEN 'fragment' ELSE 'word' END,
               CASE
                 WHEN t.value_type = 'EMAIL' THEN lower(x #>> '{}')
                 WHEN t.value_type = 'URL' THEN
                   regexp_replace(rtrim(lower(substring(x #>> '{}' from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/?#:]+)')), '.'), '^www[.]', '')
                 WHEN t.value_type = 'TELEPHONE' THEN regexp_replace(x #>> '{}', '[^0-9]', '', 'g')
                 WHEN t.value_type IN ('FULL_NAME', 'ADDRESS') THEN
                   (SELECT string_agg(member.value #>> '{}', ' ') FROM jsonb_each(x) member WHERE jsonb_typeof(member.value) = 'string')
                 WHEN t.value_type IN ('SINGLE_SELECT', 'MULTI_SELECT') THEN
                   coalesce((SELECT o ->> 'label' FROM jsonb_array_elements(coalesce(t.options, '[]')) o WHERE o ->> 'id' = x #>> '{}' LIMIT 1), x #>> '{}')
                 ELSE x #>> '{}'
               END,
               t.value_type = 'FULL_NAME' OR e.key IN ('$title', '$name'),
               record_object_type = 'meeting' AND NOT t.shown_at_metadata
          FROM jsonb_each(record_fields) e
          CROSS JOIN LATERAL (
                SELECT s.value_type, s.options, s.shown_at_metadata FROM search_system_fields s
                 WHERE s.object_type = record_object_type AND s.key = e.key
                UNION ALL
                SELECT d.value_type, d.type_configuration -> 'options', false FROM field_definitions d
                 WHERE d.workspace_id = record_workspace_id AND d.object_type = record_object_type AND d.key = e.key
                LIMIT 1) t
          CROSS JOIN LATERAL jsonb_array_elements(
                CASE WHEN jsonb_typeof(e.value) = 'array' THEN e.value ELSE jsonb_build_array(e.value) END) x
         WHERE t.value_type IN ('TEXT', 'MARKDOWN', 'FULL_NAME', 'ADDRESS', 'SOCIAL_HANDLE', 'SINGLE_SELECT', 'MULTI_SELECT', 'EMAIL', 'URL', 'TELEPHONE')
           AND jsonb_typeof(x) IN ('string', 'object')
      $$`);
    await q.query(`
      CREATE FUNCTION search_documents_refresh() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO search_documents ${documentOf('NEW')}
        ON CONFLICT (record_id) DO UPDATE
           SET words = EXCLUDED.words, hidden_words = EXCLUDED.hidden_words, names = EXCLUDED.names,
               fragments = EXCLUDED.fragments, written_by = EXCLUDED.written_by;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER search_documents_refresh AFTER INSERT OR UPDATE OF fields ON records
        FOR EACH ROW EXECUTE FUNCTION search_documents_refresh()`);
    await q.query(
      `INSERT INTO search_documents SELECT document.* FROM records r, LATERAL (${documentOf('r')}) document`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER search_documents_refresh ON records`);
    await q.query(`DROP FUNCTION search_documents_refresh()`);
    await q.query(`DROP FUNCTION search_values(text, text, jsonb)`);
    await q.query(`DROP TABLE search_documents`);
    await q.query(`DROP TABLE search_system_fields`);
    await q.query(`DROP FUNCTION search_unaccent(text)`);
    // Without CASCADE: where other objects of the database have come to use an extension, the revert
    // stops here, saying which, rather than dropping them.
    for (const extension of [...EXTENSIONS].reverse()) await q.query(`DROP EXTENSION IF EXISTS ${extension}`);
  }
}

/**
 * The search document of the record `row` (a row of `records`), as a SELECT. The trigger writes it
 * out in PL/pgSQL, which plans it once per session: a SQL function holding it was planned at each
 * call, and tripled the cost of a create.
 */
function documentOf(row: string): string {
  return `SELECT ${row}.id, ${row}.workspace_id, ${row}.object_type,
                 to_tsvector('simple', search_unaccent(coalesce(string_agg(v.value, ' ') FILTER (WHERE v.kind = 'word' AND NOT v.hidden), ''))),
                 to_tsvector('simple', search_unaccent(coalesce(string_agg(v.value, ' ') FILTER (WHERE v.hidden), ''))),
                 search_unaccent(coalesce(string_agg(v.value, ' ') FILTER (WHERE v.is_name AND NOT v.hidden), '')),
                 search_unaccent(coalesce(string_agg(v.value, E'\\n') FILTER (WHERE v.kind = 'fragment' AND NOT v.hidden AND v.value <> ''), '')),
                 pg_current_xact_id()
            FROM search_values(${row}.workspace_id, ${row}.object_type, ${row}.fields) v`;
}

/** Installs `name`, or fails saying which extension is missing and how to add it. */
async function createExtension(q: QueryRunner, name: string): Promise<void> {
  const available = (await q.query(`SELECT 1 FROM pg_available_extensions WHERE name = $1`, [name])) as unknown[];
  if (available.length === 0) {
    throw new Error(
      `Search needs the PostgreSQL extension ${name}, which this PostgreSQL server does not have: install the PostgreSQL ` +
        `contrib modules of its version (Debian's postgresql-15 package ships them; elsewhere e.g. postgresql15-contrib) and start again`,
    );
  }
  try {
    await q.query(`CREATE EXTENSION IF NOT EXISTS ${name}`);
  } catch (error) {
    throw new Error(
      `Search needs the PostgreSQL extension ${name}, which the service's database user could not create ` +
        `(${(error as Error).message}): have a superuser run CREATE EXTENSION ${name}; in this database and start again`,
      { cause: error },
    );
  }
}

async function schemaOf(q: QueryRunner, extension: string): Promise<string> {
  const [row] = (await q.query(
    `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1`,
    [extension],
  )) as { schema: string }[];
  return row.schema;
}

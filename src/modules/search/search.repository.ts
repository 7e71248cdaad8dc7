import { Injectable } from '@nestjs/common';
import { belowRankSql, firstRowsSql } from '../../common/pagination/paging-sql';
import { Transactions } from '../../database/transactions';
import { SqlParameterList } from '../../records/field-types/field-type';
import type { RecordRestriction } from '../../records/record-pages';

/**
 * How many matching documents a query ranks at most. Candidates are taken through the indexes in
 * no particular order and only they are scored, so a query that matches many records (a one-letter
 * prefix) costs the same as a selective one; the chain of pages ends after them.
 */
export const MAX_RANKED_CANDIDATES = 300;

/** What a search looks for, already normalised by SearchService. */
export interface SearchQuery {
  workspaceId: string;
  objectTypes: string[];
  /** The query as typed; the database unaccents and lowercases it as it does the documents. */
  text: string;
  /** A substring to find in emails, URL hosts and telephone digits (LIKE-escaped; unaccented by the database), or null. */
  fragment: string | null;
  /** Matches on a meeting's hidden fields count only where this holds (FULL access). */
  hiddenMeetingFields: RecordRestriction;
  /** Later pages: only documents the first page's snapshot saw (`pg_snapshot` text), after `after`. */
  snapshot: string | null;
  after: { score: string; recordId: string } | null;
  limit: number;
}

export interface SearchHit {
  recordId: string;
  objectType: string;
  /** Numeric text with 6 decimals: exact, so that a cursor compares as the database does. */
  score: string;
}

/**
 * SQL of `search_documents` (kept by the triggers of the Search migrations, but for the words of
 * meetings' transcripts, which are set here) and reader of `search_system_fields`.
 */
@Injectable()
export class SearchRepository {
  constructor(private readonly transactions: Transactions) {}

  /** Sets the words of the meeting `recordId`'s transcript in its document, without positions (see SearchIndex). */
  async setTranscriptWords(recordId: string, words: string): Promise<void> {
    await this.transactions.query(
      `UPDATE search_documents SET transcript_words = strip(to_tsvector('simple', search_unaccent($2))) WHERE record_id = $1`,
      [recordId, words],
    );
  }

  /**
   * The best `limit` hits after `after`, best first; how many candidates were ranked (before
   * `after`); and this read's snapshot, by which the later pages of a chain leave out documents
   * its first page did not see (written since, or by a transaction still open then): their
   * scores may have changed, and a record already shown could otherwise come back.
   */
  async search(query: SearchQuery): Promise<{ hits: SearchHit[]; ranked: number; snapshot: string }> {
    const params = new SqlParameterList();
    const text = params.add(query.text);
    const fragment = params.add(query.fragment);
    const hiddenMatch =
      `(f.object_type = 'meeting' AND (f.hidden_words @@ query.words OR f.transcript_words @@ query.words) ` +
      `AND ${query.hiddenMeetingFields('f.record_id', params)})`;
    const fragmentMatch = `(${fragment}::text IS NOT NULL AND f.fragments LIKE '%' || search_unaccent(${fragment}) || '%')`;
    const seen = query.snapshot
      ? `AND pg_visible_in_snapshot(d.written_by, ${params.add(query.snapshot)}::pg_snapshot)`
      : '';
    const workspace = params.add(query.workspaceId);
    const objectTypes = params.add(query.objectTypes);
    const candidates = params.add(MAX_RANKED_CANDIDATES);
    const after = belowRankSql(
      query.after && { score: query.after.score, id: query.after.recordId },
      ['ranked.score', 'ranked.record_id'],
      params,
    );
    const rows = await this.transactions.query<{
      record_id: string;
      object_type: string;
      score: string;
      ranked_count: string;
      snapshot: string;
    }>(
      `WITH ${queryTermsSql(text)}, found AS NOT MATERIALIZED (
         SELECT d.record_id, d.object_type, d.words, d.names, d.hidden_words, d.transcript_words, d.fragments
           FROM search_documents d
          WHERE d.workspace_id = ${workspace} AND d.object_type = ANY(${objectTypes}) ${seen}
       ), exact AS (
         SELECT f.*, ${hiddenMatch} AS hidden_match, ${fragmentMatch} AS fragment_match
           FROM found f, query
          WHERE f.words @@ query.words OR ${hiddenMatch} OR ${fragmentMatch}
          ${firstRowsSql(candidates)}
       ), alike AS (
         -- Only when nothing matches otherwise: a trigram search of names rechecks many rows.
         SELECT f.*, false AS hidden_match, false AS fragment_match
           FROM found f, query
          WHERE f.names % query.name AND NOT EXISTS (SELECT FROM exact)
          ${firstRowsSql(candidates)}
       ), candidates AS (
         SELECT * FROM exact UNION ALL SELECT * FROM alike
       ), ranked AS (
         SELECT c.record_id, c.object_type,
                round((coalesce(ts_rank_cd(c.words, query.words), 0)
                       + CASE WHEN c.hidden_match
                              THEN coalesce(ts_rank_cd(c.hidden_words, query.words), 0) + coalesce(ts_rank(c.transcript_words, query.words), 0)
                              ELSE 0 END
                       + similarity(c.names, query.name)
                       + CASE WHEN c.fragment_match THEN 1 ELSE 0 END)::numeric, 6) AS score,
                count(*) OVER () AS ranked_count
           FROM candidates c, query
       )
       SELECT ranked.record_id, ranked.object_type, ranked.score::text AS score, ranked.ranked_count, pg_current_snapshot()::text AS snapshot
         FROM ranked WHERE true${after}
        ORDER BY ranked.score DESC, ranked.record_id DESC
        ${firstRowsSql(params.add(query.limit))}`,
      params.values,
    );
    return {
      hits: rows.map((row) => ({ recordId: row.record_id, objectType: row.object_type, score: row.score })),
      ranked: Number(rows[0]?.ranked_count ?? 0),
      // Only a page with hits may have a next one, which needs the snapshot.
      snapshot: rows[0]?.snapshot ?? '',
    };
  }

  /**
   * The keys of the fields of each record (its fields as the caller reads them) that hold what the
   * search looks for, by the rule its documents are built and matched by: each field's values as
   * the search trigger's `search_values` reads them (option labels, URL hosts, telephone digits…),
   * words matching any word of the query (the last as a prefix), emails, hosts and telephone
   * digits the fragment. A field the caller's view hides (null) matches nothing.
   */
  async matchedFields(
    workspaceId: string,
    query: Pick<SearchQuery, 'text' | 'fragment'>,
    records: { id: string; objectType: string; fields: Record<string, unknown> }[],
  ): Promise<Map<string, Set<string>>> {
    const matched = new Map<string, Set<string>>();
    if (records.length === 0) return matched;
    const params = new SqlParameterList();
    const fragment = params.add(query.fragment);
    const rows = await this.transactions.query<{ id: string; key: string }>(
      `WITH ${queryTermsSql(params.add(query.text))}
       SELECT r.id, e.key
         FROM jsonb_to_recordset(${params.add(JSON.stringify(records))}::jsonb) AS r(id text, "objectType" text, fields jsonb)
        CROSS JOIN LATERAL jsonb_each(r.fields) e, query
        WHERE EXISTS (
                SELECT FROM search_values(${params.add(workspaceId)}, r."objectType", jsonb_build_object(e.key, e.value)) v
                 WHERE ((v.kind = 'word' OR v.hidden) AND to_tsvector('simple', search_unaccent(v.value)) @@ query.any_word)
                    OR (v.kind = 'fragment' AND NOT v.hidden AND ${fragment}::text IS NOT NULL
                        AND search_unaccent(v.value) LIKE '%' || search_unaccent(${fragment}) || '%'))`,
      params.values,
      // One text whatever the page: planned once per connection.
      { prepare: 'search-matched-fields' },
    );
    for (const { id, key } of rows) matched.set(id, (matched.get(id) ?? new Set()).add(key));
    return matched;
  }
}

/**
 * WITH entries of what the query `text` (bound) looks for: `query.words`, its words as a tsquery
 * that each must match, the last one a prefix; `query.any_word`, the same words of which any one
 * matches; `query.name`, the text as names are compared. The words are the lexemes the documents'
 * own parser makes of the unaccented text, so that `acme.io` or `o'brien` split as they did when indexed.
 */
function queryTermsSql(text: string): string {
  const wordsJoinedBy = (operator: string) =>
    `(SELECT string_agg('''' || replace(replace(l.lexeme, '\\', '\\\\'), '''', '''''') || ''''
                          || CASE WHEN l.positions @> ARRAY[(SELECT max(p) FROM lexemes, unnest(lexemes.positions) p)] THEN ':*' ELSE '' END,
                        ' ${operator} ')
        FROM lexemes l)::tsquery`;
  return `lexemes AS (
         SELECT t.lexeme, t.positions FROM unnest(to_tsvector('simple', search_unaccent(${text}))) t
       ), query AS (
         SELECT ${wordsJoinedBy('&')} AS words, ${wordsJoinedBy('|')} AS any_word, search_unaccent(${text}) AS name
       )`;
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The meeting privacy rule of docs/api.md §9, written once, as SQL functions that the meetings and
 * files repositories call by name. A caller has FULL access to a meeting when its `$privacySetting`
 * is not METADATA (unset counts as FULL), or the caller's member created it (the `$createdBy`
 * link), organises it (`$organizerEmail`) or attends it (`$attendeeEmails`); otherwise METADATA.
 * Emails are stored lowercased by the EMAIL type; callers pass theirs lowercased.
 *
 * Any of those may be unset (absent or JSON null), and a comparison with NULL is NULL, not false:
 * `NOT (… OR organizer = email …)` would then be NULL and let a hidden transcript through a
 * `NOT EXISTS`. So the disjunction is read with `IS TRUE`: `full_access` is TRUE or FALSE, never NULL.
 *
 * Both functions are single-SELECT, STABLE, non-strict SQL functions that return a set, which
 * PostgreSQL inlines into the calling statement: the planner sees the tables and indexes
 * themselves, as if the rule were written out at each call site.
 */
export class MeetingAccess1763798400000 implements MigrationInterface {
  name = 'MeetingAccess1763798400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION meeting_access(caller_workspace_id text, caller_member_id text, caller_email text)
      RETURNS TABLE (meeting_id text, full_access boolean)
      LANGUAGE sql STABLE
      AS $$
        SELECT meeting.id, ((
                 coalesce(meeting.fields ->> '$privacySetting', 'FULL') <> 'METADATA'
                 OR meeting.fields ->> '$organizerEmail' = caller_email
                 OR meeting.fields -> '$attendeeEmails' @> jsonb_build_array(caller_email)
                 OR EXISTS (SELECT 1 FROM record_links creator
                             WHERE creator.source_id = meeting.id AND creator.link = 'meeting:$createdBy'
                               AND creator.target_id = caller_member_id)
               ) IS TRUE)
          FROM records meeting
         WHERE meeting.workspace_id = caller_workspace_id AND meeting.object_type = 'meeting'
      $$`);
    // A meeting's transcript is hidden with the meeting: the files routes answer 404 for these.
    await q.query(`
      CREATE FUNCTION hidden_meeting_transcripts(caller_workspace_id text, caller_member_id text, caller_email text)
      RETURNS TABLE (file_id text)
      LANGUAGE sql STABLE
      AS $$
        SELECT transcript.target_id
          FROM record_links transcript
          JOIN meeting_access(caller_workspace_id, caller_member_id, caller_email) access
            ON access.meeting_id = transcript.source_id
         WHERE transcript.link = 'meeting:$transcript' AND transcript.workspace_id = caller_workspace_id
           AND NOT access.full_access
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION hidden_meeting_transcripts(text, text, text)`);
    await q.query(`DROP FUNCTION meeting_access(text, text, text)`);
  }
}

/**
 * Meeting privacy (decisions §9) as SQL, shared by the meetings and files modules: a caller has
 * FULL access to a meeting when its `$privacySetting` is not METADATA, or the caller's member
 * created it (link `meeting:$createdBy`), organises it (`$organizerEmail`) or attends it
 * (`$attendeeEmails`); otherwise METADATA. Emails are stored lowercased by the EMAIL type.
 *
 * `meeting` is the SQL alias of a `records` row of type meeting; `memberId` and `email` are bind
 * placeholders (e.g. `$3`) holding the caller's member id and lowercased email.
 */
export function meetingFullAccessSql(meeting: string, memberId: string, email: string): string {
  return `(
    coalesce(${meeting}.fields ->> '$privacySetting', 'FULL') <> 'METADATA'
    OR ${meeting}.fields ->> '$organizerEmail' = ${email}
    OR coalesce(${meeting}.fields -> '$attendeeEmails', '[]'::jsonb) @> jsonb_build_array(${email}::text)
    OR EXISTS (SELECT 1 FROM record_links creator
                WHERE creator.source_id = ${meeting}.id AND creator.link = 'meeting:$createdBy'
                  AND creator.target_id = ${memberId})
  )`;
}

/** The link from a meeting to its transcript file. */
export const TRANSCRIPT_LINK = 'meeting:$transcript';

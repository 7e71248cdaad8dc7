/**
 * Meeting privacy as SQL, the one place the rule is written; the meetings and files modules both
 * use it. A caller has FULL access to a meeting when its `$privacySetting` is not METADATA (unset
 * counts as FULL), or the caller's member created it (link `meeting:$createdBy`), organises it
 * (`$organizerEmail`) or attends it (`$attendeeEmails`); otherwise METADATA. Emails are stored
 * lowercased by the EMAIL type.
 *
 * Every optional member may be unset (absent or JSON null), and a comparison with NULL is NULL,
 * not false: `NOT (… OR organizer = email …)` would then be NULL and let a hidden transcript
 * through a `NOT EXISTS`. So the whole disjunction is read with `IS TRUE`, and the expression is
 * TRUE or FALSE, never NULL, wherever it is used (negated, in a WHERE, or as a column).
 *
 * `meeting` is the SQL alias of a `records` row of type meeting; `memberId` and `email` are bind
 * placeholders (e.g. `$3`) holding the caller's member id and lowercased email.
 */
export function meetingFullAccessSql(meeting: string, memberId: string, email: string): string {
  return `((
    coalesce(${meeting}.fields ->> '$privacySetting', 'FULL') <> 'METADATA'
    OR ${meeting}.fields ->> '$organizerEmail' = ${email}
    OR ${meeting}.fields -> '$attendeeEmails' @> jsonb_build_array(${email}::text)
    OR EXISTS (SELECT 1 FROM record_links creator
                WHERE creator.source_id = ${meeting}.id AND creator.link = 'meeting:$createdBy'
                  AND creator.target_id = ${memberId})
  ) IS TRUE)`;
}

/** The link from a meeting to its transcript file. */
export const TRANSCRIPT_LINK = 'meeting:$transcript';

import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { Transactions } from '../../database/transactions';
import type { RecordRestriction } from '../../records/record-pages';

/** The caller as the meeting privacy rule takes it: workspace, member, lowercased email. */
function callerArguments(caller: AuthContext): [string, string, string] {
  return [caller.workspaceId, caller.memberId, caller.memberEmail.toLowerCase()];
}

/**
 * Calls of the meeting privacy rule (docs/api.md §9), the `meeting_access` database function of
 * the MeetingAccess migration; the files repository hides transcripts through the same rule.
 * Meetings are records: their rows belong to the records core.
 */
@Injectable()
export class MeetingsRepository {
  constructor(private readonly transactions: Transactions) {}

  /** Whether the caller has FULL access to each of these meetings of its workspace; one not found has no entry. */
  async fullAccess(caller: AuthContext, meetingIds: string[]): Promise<Map<string, boolean>> {
    if (meetingIds.length === 0) return new Map();
    const rows = await this.transactions.query<{ meeting_id: string; full_access: boolean }>(
      `SELECT meeting_id, full_access FROM meeting_access($1, $2, $3) WHERE meeting_id = ANY($4)`,
      [...callerArguments(caller), meetingIds],
    );
    return new Map(rows.map((row) => [row.meeting_id, row.full_access]));
  }

  /** Narrows a list of meetings to those the caller has FULL access to. */
  fullAccessRestriction(caller: AuthContext): RecordRestriction {
    return (meetingId, params) => {
      const [workspace, member, email] = callerArguments(caller).map((value) => params.add(value));
      return `EXISTS (SELECT 1 FROM meeting_access(${workspace}, ${member}, ${email}) access
                       WHERE access.meeting_id = ${meetingId} AND access.full_access)`;
    };
  }
}

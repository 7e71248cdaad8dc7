import { DataSource } from 'typeorm';
import { SYSTEM_RECORD_TYPES } from '../../src/records/system-types';
import { apiSuite } from '../support/api-suite';

const MEETING = SYSTEM_RECORD_TYPES.find((type) => type.slug === 'meeting')!;

interface PlanNode {
  'Node Type': string;
  Plans?: PlanNode[];
}

function nodeTypes(plan: PlanNode): string[] {
  return [plan['Node Type'], ...(plan.Plans ?? []).flatMap(nodeTypes)];
}

/**
 * The meeting privacy rule (docs/api.md §9) is one SQL function; the meetings routes and the files
 * routes both call it (see meeting-privacy.e2e-spec.ts for what it decides on every path).
 */
describe('the meeting access rule', () => {
  const suite = apiSuite();
  let dataSource: DataSource;

  beforeAll(() => {
    dataSource = suite.t.app.get(DataSource);
  });

  const definition = async (name: string): Promise<string> =>
    (await dataSource.query<{ sql: string }[]>(`SELECT pg_get_functiondef($1::regproc) AS sql`, [name]))[0].sql;

  it('names only keys and links of the meeting type as defined in code', async () => {
    const sql = `${await definition('meeting_access')}\n${await definition('hidden_meeting_transcripts')}`;
    const links = [...sql.matchAll(/'(meeting:\$\w+)'/g)].map((match) => match[1]);
    const keys = [...sql.matchAll(/'(\$\w+)'/g)].map((match) => match[1]);
    expect(new Set(links)).toEqual(
      new Set(
        ['$createdBy', '$transcript'].map((key) => MEETING.relationships.find((r) => r.key === key)!.binding.link),
      ),
    );
    expect(new Set(keys)).toEqual(new Set(['$privacySetting', '$organizerEmail', '$attendeeEmails']));
    for (const key of keys) expect(MEETING.fields.map((field) => field.key)).toContain(key);
  });

  it.each([
    ['meetings', `SELECT meeting_id, full_access FROM meeting_access($1, $2, $3) WHERE meeting_id = ANY($4)`, 4],
    [
      'files',
      `SELECT f.id FROM files f WHERE f.workspace_id = $1 AND NOT EXISTS (SELECT 1 FROM hidden_meeting_transcripts($1, $2, $3) h WHERE h.file_id = f.id)`,
      3,
    ],
  ])(
    'is inlined into the %s statements: the planner sees the tables, not a function',
    async (_name, statement, parameters) => {
      const values = [suite.ws.workspaceId, suite.ws.memberId, suite.ws.memberEmail.toLowerCase(), ['mtg_x']].slice(
        0,
        parameters,
      );
      const [
        {
          'QUERY PLAN': [{ Plan: plan }],
        },
      ] = await dataSource.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]>(
        `EXPLAIN (FORMAT JSON) ${statement}`,
        values,
      );
      expect(nodeTypes(plan)).not.toContain('Function Scan');
    },
  );
});

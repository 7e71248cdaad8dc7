import { Injectable } from '@nestjs/common';
import { endPage, type PageRequest } from '../../common/pagination/pagination';
import { MemberEntity } from '../../database/entities/member.entity';
import { keysetPageSql } from '../../common/pagination/paging-sql';
import { Transactions } from '../../database/transactions';
import { filterSql, SqlParameterList } from '../../records/record-filters';
import type { LinkTargetOwner } from '../../records/link-targets';
import { MEMBER_TYPE } from './member.type';

/** A member as a row of the page statement (its timestamps come through json_agg as text). */
interface MemberPageRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: MemberEntity['role'];
  created_at: string;
  updated_at: string | null;
}

function fromPageRow(row: MemberPageRow): MemberEntity {
  return Object.assign(new MemberEntity(), {
    id: row.id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role,
    createdAt: new Date(row.created_at),
    updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
  });
}

/** A `members` row as MemberEntity names its columns. */
const MEMBER_COLUMNS = `id, workspace_id AS "workspaceId", email, first_name AS "firstName", last_name AS "lastName", role,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * `members` rows as the filter engine reads records: with the `fields` document their envelope
 * shows (docs/api.md §6, §8), so the record filters apply to members unchanged.
 */
const MEMBERS_AS_RECORDS = `(SELECT m.*, jsonb_strip_nulls(jsonb_build_object(
    '$email', lower(m.email),
    '$name', nullif(jsonb_strip_nulls(jsonb_build_object('firstName', m.first_name, 'lastName', m.last_name)), '{}'::jsonb),
    '$role', m.role)) AS fields
  FROM members m) r`;

/**
 * The `members` table, as MemberEntity rows; the filtered page is written over a `fields` document,
 * to which the record filters compile. Also the link target owner for `member` (see LinkTargets).
 */
@Injectable()
export class MembersRepository implements LinkTargetOwner {
  constructor(private readonly transactions: Transactions) {}

  async findInWorkspace(workspaceId: string, id: string): Promise<MemberEntity | null> {
    const [member] = await this.transactions.query<MemberEntity>(
      `SELECT ${MEMBER_COLUMNS} FROM members WHERE id = $1 AND workspace_id = $2`,
      [id, workspaceId],
    );
    return member ?? null;
  }

  /** Whether a member of the workspace has this email, letter case aside. */
  async emailTaken(workspaceId: string, email: string): Promise<boolean> {
    const rows = await this.transactions.query(`SELECT 1 FROM members WHERE workspace_id = $1 AND lower(email) = lower($2) LIMIT 1`, [
      workspaceId,
      email,
    ]);
    return rows.length > 0;
  }

  async insert(member: MemberEntity): Promise<MemberEntity> {
    await this.transactions.query(
      `INSERT INTO members (id, workspace_id, email, first_name, last_name, role, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [member.id, member.workspaceId, member.email, member.firstName, member.lastName, member.role, member.createdAt, member.updatedAt],
    );
    return member;
  }

  async existingIds(workspaceId: string, ids: string[]): Promise<string[]> {
    const rows = await this.transactions.query<{ id: string }>(`SELECT id FROM members WHERE workspace_id = $1 AND id = ANY($2)`, [
      workspaceId,
      ids,
    ]);
    return rows.map((row) => row.id);
  }

  /** Every member's email, lowercased as the EMAIL field type stores addresses. */
  async emailsOf(workspaceId: string): Promise<string[]> {
    const rows = await this.transactions.query<{ email: string }>(`SELECT email FROM members WHERE workspace_id = $1`, [workspaceId]);
    return rows.map((row) => row.email.toLowerCase());
  }

  /**
   * Newest first, with the record filters of docs/api.md §8. The count and the page are one
   * statement, so they come from one snapshot: a page never outgrows its `totalCount`. The page is
   * ended (endPage).
   */
  async page(workspaceId: string, page: PageRequest): Promise<{ members: MemberEntity[]; total: number }> {
    const params = new SqlParameterList();
    const { conditions } = filterSql(MEMBER_TYPE, page.filters, params, { valueIndex: false });
    const where = [`r.workspace_id = ${params.add(workspaceId)}`, ...conditions].join(' AND ');
    const columns = 'r.id, r.email, r.first_name, r.last_name, r.role, r.created_at, r.updated_at';
    const [result] = (await this.transactions.query(
      keysetPageSql({ columns, from: MEMBERS_AS_RECORDS, where, key: ['r.created_at', 'r.id'] }, page, params),
      params.values,
    )) as [{ total: number; rows: MemberPageRow[] }];
    const rows = endPage(page, result.rows, (row) => ({ at: row.created_at, id: row.id }));
    return { members: rows.map(fromPageRow), total: result.total };
  }
}

import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { endPage, type PageRead, type PageRequest } from '../../common/pagination/pagination';
import { MemberEntity } from '../../database/entities/member.entity';
import { keysetPageSql } from '../../common/pagination/paging-sql';
import { Transactions } from '../../database/transactions';
import { filterSql } from '../../records/record-filters';
import { SqlParameterList } from '../../records/field-types/field-type';
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

  private get members() {
    return this.transactions.repository(MemberEntity);
  }

  async findInWorkspace(workspaceId: string, id: string): Promise<MemberEntity | null> {
    return this.members.findOneBy({ id, workspaceId });
  }

  /** Whether a member of the workspace has this email, letter case aside (as the unique index on lower(email) compares). */
  async emailTaken(workspaceId: string, email: string): Promise<boolean> {
    return this.members
      .createQueryBuilder('m')
      .where('m.workspace_id = :workspaceId AND lower(m.email) = lower(:email)', { workspaceId, email })
      .getExists();
  }

  async insert(member: MemberEntity): Promise<MemberEntity> {
    await this.members.insert(member);
    return member;
  }

  async existingIds(workspaceId: string, ids: string[]): Promise<string[]> {
    const members = await this.members.find({ select: { id: true }, where: { workspaceId, id: In(ids) } });
    return members.map((member) => member.id);
  }

  /** Every member's email, lowercased as the EMAIL field type stores addresses. */
  async emailsOf(workspaceId: string): Promise<string[]> {
    const members = await this.members.find({ select: { email: true }, where: { workspaceId } });
    return members.map((member) => member.email.toLowerCase());
  }

  /**
   * Newest first, with the record filters of docs/api.md §8. The count and the page are one
   * statement, so they come from one snapshot: a page never outgrows its `totalCount`. The page is
   * ended (endPage).
   */
  async page(workspaceId: string, page: PageRequest): Promise<PageRead<MemberEntity>> {
    const params = new SqlParameterList();
    const { conditions } = filterSql(MEMBER_TYPE, page.filters, params, { valueIndex: false });
    const where = [`r.workspace_id = ${params.add(workspaceId)}`, ...conditions].join(' AND ');
    const columns = 'r.id, r.email, r.first_name, r.last_name, r.role, r.created_at, r.updated_at';
    const [result] = (await this.transactions.query(
      keysetPageSql({ columns, from: MEMBERS_AS_RECORDS, where, key: ['r.created_at', 'r.id'] }, page, params),
      params.values,
    )) as [{ total: number; rows: MemberPageRow[] }];
    const read = endPage(page, result, (row) => ({ at: row.created_at, id: row.id }));
    return { ...read, rows: read.rows.map(fromPageRow) };
  }
}

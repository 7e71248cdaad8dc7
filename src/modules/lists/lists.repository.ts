import { Injectable } from '@nestjs/common';
import { Transactions } from '../../database/transactions';

export const LIST_MEMBER_TYPES = ['account', 'contact', 'opportunity'] as const;
export type ListMemberType = (typeof LIST_MEMBER_TYPES)[number];

export interface ListRow {
  id: string;
  name: string;
  object_type: ListMemberType;
  created_at: Date;
}

const LIST_COLUMNS = 'id, name, object_type, created_at';

/**
 * SQL of `lists` and `list_members`. Hand-written like the files repository: pages read their
 * count in the same statement (one snapshot), an update returns the row it locked, and members are
 * added one statement each so that `added_at` (the clock at each insert) keeps the request's order.
 */
@Injectable()
export class ListsRepository {
  constructor(private readonly transactions: Transactions) {}

  /** `created_at` is written in milliseconds (a JS Date), the precision the API shows. */
  async insert(list: { id: string; workspaceId: string; name: string; objectType: ListMemberType }): Promise<ListRow> {
    const [row] = (await this.transactions.manager.query(
      `INSERT INTO lists (id, workspace_id, name, object_type, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${LIST_COLUMNS}`,
      [list.id, list.workspaceId, list.name, list.objectType, new Date()],
    )) as ListRow[];
    return row;
  }

  async find(workspaceId: string, id: string): Promise<ListRow | undefined> {
    const [row] = (await this.transactions.manager.query(`SELECT ${LIST_COLUMNS} FROM lists WHERE id = $1 AND workspace_id = $2`, [
      id,
      workspaceId,
    ])) as ListRow[];
    return row;
  }

  /**
   * Renames the list (`name` undefined keeps it) and stamps the update; its row stays locked until
   * the transaction ends, so concurrent updates of one list take turns. Undefined when not found.
   */
  async update(workspaceId: string, id: string, name: string | undefined): Promise<ListRow | undefined> {
    // TypeORM answers an UPDATE with [rows, count].
    const [[row]] = (await this.transactions.manager.query(
      `UPDATE lists SET name = coalesce($3, name), updated_at = $4 WHERE id = $1 AND workspace_id = $2 RETURNING ${LIST_COLUMNS}`,
      [id, workspaceId, name ?? null, new Date()],
    )) as [ListRow[], number];
    return row;
  }

  /**
   * A page, newest first, and the count of the workspace's lists, from one statement: one
   * snapshot, so a page never holds more than `totalCount - offset` lists while others are being
   * created. The count row is joined to the page, so an offset past the end still reads the count.
   */
  async page(workspaceId: string, limit: number, offset: number): Promise<{ lists: ListRow[]; total: number }> {
    const rows = (await this.transactions.manager.query(
      `SELECT counted.total, paged.*
         FROM (SELECT count(*)::int AS total FROM lists WHERE workspace_id = $1) counted
         LEFT JOIN LATERAL (SELECT ${LIST_COLUMNS} FROM lists WHERE workspace_id = $1
                             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3) paged ON true
        ORDER BY paged.created_at DESC, paged.id DESC`,
      [workspaceId, limit, offset],
    )) as (ListRow & { total: number })[];
    return { lists: rows.filter((row) => row.id !== null), total: rows[0].total };
  }

  /**
   * The list and a page of its members' record ids, most recently added first (docs/api.md §3),
   * with their count: one statement. Undefined when the workspace has no such list.
   */
  async membersPage(
    workspaceId: string,
    listId: string,
    limit: number,
    offset: number,
  ): Promise<{ list: ListRow; recordIds: string[]; total: number } | undefined> {
    const [row] = (await this.transactions.manager.query(
      `SELECT l.id, l.name, l.object_type, l.created_at,
              (SELECT count(*)::int FROM list_members WHERE list_id = l.id) AS total,
              coalesce((SELECT array_agg(m.record_id ORDER BY m.added_at DESC, m.record_id DESC)
                          FROM (SELECT record_id, added_at FROM list_members WHERE list_id = l.id
                                 ORDER BY added_at DESC, record_id DESC LIMIT $3 OFFSET $4) m), '{}') AS record_ids
         FROM lists l WHERE l.id = $1 AND l.workspace_id = $2`,
      [listId, workspaceId, limit, offset],
    )) as (ListRow & { total: number; record_ids: string[] })[];
    if (!row) return undefined;
    const { total, record_ids: recordIds, ...list } = row;
    return { list, recordIds, total };
  }

  async removeMembers(listId: string, recordIds: string[]): Promise<void> {
    await this.transactions.manager.query(`DELETE FROM list_members WHERE list_id = $1 AND record_id = ANY($2)`, [listId, recordIds]);
  }

  /** Adds in the order given; a record already in the list keeps its first position. */
  async addMembers(listId: string, recordIds: string[]): Promise<void> {
    for (const recordId of recordIds) {
      await this.transactions.manager.query(`INSERT INTO list_members (list_id, record_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
        listId,
        recordId,
      ]);
    }
  }
}

import { Injectable } from '@nestjs/common';
import { endPage, type PageRead } from '../../common/pagination/pagination';
import type { PageRequest } from '../../common/pagination/pagination';
import { keysetPageSql } from '../../common/pagination/paging-sql';
import { ListEntity, type ListMemberType } from '../../database/entities/list.entity';
import { Transactions } from '../../database/transactions';
import { SqlParameterList } from '../../records/field-types/field-type';

export interface ListRow {
  id: string;
  name: string;
  object_type: ListMemberType;
  created_at: Date;
  version: number;
}

const LIST_COLUMNS = 'id, name, object_type, created_at, version';

/**
 * SQL of `lists` and `list_members`. Hand-written like the files repository: pages read their
 * count in the same statement (one snapshot), an update returns the row it locked, and a request's
 * members are added in one statement whose `added_at` keeps the request's order.
 */
@Injectable()
export class ListsRepository {
  constructor(private readonly transactions: Transactions) {}

  /** `created_at` is written in milliseconds (a JS Date), the precision the API shows. */
  async insert(list: { id: string; workspaceId: string; name: string; objectType: ListMemberType }): Promise<ListRow> {
    const [row] = await this.transactions.query<ListRow>(
      `INSERT INTO lists (id, workspace_id, name, object_type, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${LIST_COLUMNS}`,
      [list.id, list.workspaceId, list.name, list.objectType, new Date()],
    );
    return row;
  }

  async find(workspaceId: string, id: string): Promise<ListRow | undefined> {
    const list = await this.transactions.repository(ListEntity).findOne({
      select: { id: true, name: true, objectType: true, createdAt: true, version: true },
      where: { id, workspaceId },
    });
    return list
      ? {
          id: list.id,
          name: list.name,
          object_type: list.objectType,
          created_at: list.createdAt,
          version: list.version,
        }
      : undefined;
  }

  /**
   * Renames the list (`name` undefined keeps it), counting a new name in its version, and stamps
   * the update; its row stays locked until the transaction ends, so concurrent updates of one list
   * take turns. Undefined when not found; else the list and its name and version before.
   */
  async update(
    workspaceId: string,
    id: string,
    name: string | undefined,
  ): Promise<(ListRow & { previous_name: string; previous_version: number }) | undefined> {
    const [row] = await this.transactions.query<ListRow & { previous_name: string; previous_version: number }>(
      `UPDATE lists l SET name = coalesce($3, l.name), updated_at = $4,
              version = l.version + (coalesce($3, l.name) <> previous.name)::int
         FROM (SELECT name, version FROM lists WHERE id = $1 AND workspace_id = $2 FOR UPDATE) previous
        WHERE l.id = $1 AND l.workspace_id = $2
        RETURNING l.id, l.name, l.object_type, l.created_at, l.version,
                  previous.name AS previous_name, previous.version AS previous_version`,
      [id, workspaceId, name ?? null, new Date()],
      { locks: true },
    );
    return row;
  }

  /** Counts a change of the list's members in its version; answers the version then. */
  async countMemberChange(id: string): Promise<number> {
    const [row] = await this.transactions.query<{ version: number }>(
      `UPDATE lists SET version = version + 1 WHERE id = $1 RETURNING version`,
      [id],
    );
    return row.version;
  }

  /** A page, newest first, and the count of the workspace's lists (see keysetPageSql), ended (endPage). */
  async page(workspaceId: string, page: PageRequest): Promise<PageRead<ListRow>> {
    const params = new SqlParameterList();
    const where = `workspace_id = ${params.add(workspaceId)}`;
    const [result] = await this.transactions.query<{ total: number; rows: (ListRow & { created_at: string })[] }>(
      keysetPageSql({ columns: LIST_COLUMNS, from: 'lists', where, key: ['created_at', 'id'] }, page, params),
      params.values,
    );
    const read = endPage(page, result, (row) => ({ at: row.created_at, id: row.id }));
    return { ...read, rows: read.rows.map((row) => ({ ...row, created_at: new Date(row.created_at) })) };
  }

  /**
   * The list and a page of its members' record ids, most recently added first (docs/api.md §3),
   * with their count: one statement. Undefined when the workspace has no such list. A cursor's
   * page starts after its key (`added_at`, `record_id`); the page is ended (endPage).
   */
  async membersPage(
    workspaceId: string,
    listId: string,
    page: PageRequest,
  ): Promise<{ list: ListRow; members: PageRead<string> } | undefined> {
    const params = new SqlParameterList();
    const [list, workspace] = [params.add(listId), params.add(workspaceId)];
    const memberPage = keysetPageSql(
      { columns: 'record_id, added_at', from: 'list_members', where: 'list_id = l.id', key: ['added_at', 'record_id'] },
      page,
      params,
    );
    const [row] = await this.transactions.query<
      ListRow & { total: number; rows: { record_id: string; added_at: string }[] }
    >(
      `SELECT l.id, l.name, l.object_type, l.created_at, l.version, page.total, page.rows
         FROM lists l
        CROSS JOIN LATERAL (${memberPage}) page
        WHERE l.id = ${list} AND l.workspace_id = ${workspace}`,
      params.values,
    );
    if (!row) return undefined;
    const { total, rows, ...found } = row;
    const read = endPage(page, { rows, total }, (member) => ({ at: member.added_at, id: member.record_id }));
    return { list: found, members: { ...read, rows: read.rows.map((member) => member.record_id) } };
  }

  /** Answers the records that were members, in the order given. */
  async removeMembers(listId: string, recordIds: string[]): Promise<string[]> {
    const rows = await this.transactions.query<{ record_id: string }>(
      `DELETE FROM list_members WHERE list_id = $1 AND record_id = ANY($2) RETURNING record_id`,
      [listId, recordIds],
    );
    const removed = new Set(rows.map((row) => row.record_id));
    return recordIds.filter((id) => removed.delete(id));
  }

  /**
   * Adds in the order given, in one statement; a record already in the list, or repeated in
   * `recordIds`, keeps its first position. `added_at` is not left to its default: the clock read
   * per row of one statement repeats a microsecond and is not read in the rows' order, so each
   * row gets the statement's clock plus its position in microseconds. Answers the records that
   * were not members yet, in the order given.
   */
  async addMembers(listId: string, recordIds: string[]): Promise<string[]> {
    if (recordIds.length === 0) return [];
    const rows = await this.transactions.query<{ record_id: string }>(
      `INSERT INTO list_members (list_id, record_id, added_at, workspace_id)
       SELECT $1, added.record_id, (SELECT clock_timestamp()) + added.position * interval '1 microsecond', l.workspace_id
         FROM unnest($2::text[]) WITH ORDINALITY AS added(record_id, position) JOIN lists l ON l.id = $1
        ORDER BY added.position
       ON CONFLICT DO NOTHING
       RETURNING record_id`,
      [listId, recordIds],
    );
    const added = new Set(rows.map((row) => row.record_id));
    return recordIds.filter((id) => added.delete(id));
  }
}

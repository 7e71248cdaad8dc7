import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { endPage, type PageRead, type PageRequest } from '../../common/pagination/pagination';
import { firstRowsSql, keysetPageSql } from '../../common/pagination/paging-sql';
import { type RowLock, Transactions } from '../../database/transactions';
import { SqlParameterList } from '../../records/field-types/field-type';
import type { LinkTargetOwner } from '../../records/link-targets';
import type { RecordRestriction } from '../../records/record-pages';
import type { FileDto, FileStatus } from './dto/file.dto';
import type { StoredFile } from './storage/file-storage';

/** A `files` row as read, with its status at the moment of reading. */
export interface FileRecord extends StoredFile {
  memberId: string;
  /** The stored status, EXPIRED when a PENDING file's deadline has passed. */
  status: FileStatus;
  createdAt: Date;
  /** The upload deadline, kept after completion or cancellation. */
  deadline: Date;
  completedAt: Date | null;
}

interface FileRow {
  id: string;
  workspace_id: string;
  member_id: string;
  filename: string;
  mime_type: string;
  size_bytes: string;
  status: 'PENDING' | 'COMPLETED' | 'CANCELLED';
  storage_key: string;
  object_key: string | null;
  /** Timestamps come as text through a page's json_agg. */
  created_at: Date | string;
  expires_at: Date | string;
  completed_at: Date | string | null;
  expired: boolean;
}

/**
 * Every read decides EXPIRED with the database clock at the statement, the clock that also
 * stamps deadlines, so a status is exact at any moment and the same for every instance.
 */
const COLUMNS = `f.id, f.workspace_id, f.member_id, f.filename, f.mime_type, f.size_bytes, f.status, f.storage_key,
  f.object_key, f.created_at, f.expires_at, f.completed_at,
  (f.status = 'PENDING' AND f.expires_at <= statement_timestamp()) AS expired`;

/**
 * docs/api.md §9: the transcript of a meeting that the caller sees at METADATA access does not
 * exist for that caller: SQL true of the file `fileId` when the caller (`workspace`, `member`, its
 * lowercased `email`, each bound) may see it. The meeting privacy rule is the database function of
 * the MeetingAccess migration.
 */
function visibleToCallerSql(fileId: string, [workspace, member, email]: string[]): string {
  return `NOT EXISTS (SELECT 1 FROM hidden_meeting_transcripts(${workspace}, ${member}, ${email}) hidden WHERE hidden.file_id = ${fileId})`;
}

/** visibleToCallerSql of `f`, the caller bound as `$1`, `$2`, `$3` (callerParams). */
const VISIBLE_TO_CALLER = visibleToCallerSql('f.id', ['$1', '$2', '$3']);

function toRecord(row: FileRow): FileRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    memberId: row.member_id,
    filename: row.filename,
    mimeType: row.mime_type,
    sizeBytes: Number(row.size_bytes),
    status: row.expired ? 'EXPIRED' : row.status,
    storageKey: row.storage_key,
    objectKey: row.object_key,
    createdAt: new Date(row.created_at),
    deadline: new Date(row.expires_at),
    completedAt: row.completed_at === null ? null : new Date(row.completed_at),
  };
}

/** The response shape (docs/api.md §10): `expiresAt` only while the upload is open. */
export function toFileDto(file: FileRecord): FileDto {
  return {
    id: file.id,
    createdAt: file.createdAt.toISOString(),
    completedAt: file.completedAt?.toISOString() ?? null,
    expiresAt: file.status === 'PENDING' ? file.deadline.toISOString() : null,
    filename: file.filename,
    mimeType: file.mimeType,
    sizeBytes: file.sizeBytes,
    status: file.status,
  };
}

function callerParams(caller: AuthContext): string[] {
  return [caller.workspaceId, caller.memberId, caller.memberEmail.toLowerCase()];
}

/**
 * SQL of the `files` table; the service decides, this reads and writes. Also the link target
 * owner for `file` (a meeting's `$transcript`: see LinkTargets).
 */
@Injectable()
export class FilesRepository implements LinkTargetOwner {
  constructor(private readonly transactions: Transactions) {}

  /**
   * `created_at` is stamped in milliseconds, the precision the API shows and lists order by: two
   * files with the same shown `createdAt` then order by id (a table constraint keeps it so).
   */
  async insert(file: {
    id: string;
    workspaceId: string;
    memberId: string;
    filename: string;
    mimeType: string;
    sizeBytes: number;
    storageKey: string;
    ttlSeconds: number;
  }): Promise<FileRecord> {
    const rows: FileRow[] = await this.transactions.query(
      `INSERT INTO files AS f (id, workspace_id, member_id, filename, mime_type, size_bytes, status, storage_key,
                          created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', $7, date_trunc('milliseconds', statement_timestamp()),
               date_trunc('second', statement_timestamp()) + make_interval(secs => $8))
       RETURNING ${COLUMNS}`,
      [
        file.id,
        file.workspaceId,
        file.memberId,
        file.filename,
        file.mimeType,
        file.sizeBytes,
        file.storageKey,
        file.ttlSeconds,
      ],
    );
    return toRecord(rows[0]);
  }

  /** The file as the caller may see it; with `lock`, its row is locked until the transaction ends. */
  async findVisible(caller: AuthContext, id: string, { lock = false }: RowLock = {}): Promise<FileRecord | undefined> {
    const rows = await this.transactions.query<FileRow>(
      `SELECT ${COLUMNS} FROM files f
        WHERE f.id = $4 AND f.workspace_id = $1 AND ${VISIBLE_TO_CALLER}
        ${lock ? 'FOR UPDATE OF f' : ''}`,
      [...callerParams(caller), id],
      { locks: lock },
    );
    return rows[0] && toRecord(rows[0]);
  }

  /** A page, newest first, and the count of every visible file (see keysetPageSql), ended (endPage). */
  async page(caller: AuthContext, page: PageRequest): Promise<PageRead<FileRecord>> {
    const params = new SqlParameterList();
    callerParams(caller).forEach((value) => params.add(value));
    const where = `f.workspace_id = $1 AND ${VISIBLE_TO_CALLER}`;
    const [result]: { total: number; rows: FileRow[] }[] = await this.transactions.query(
      keysetPageSql({ columns: COLUMNS, from: 'files f', where, key: ['f.created_at', 'f.id'] }, page, params),
      params.values,
    );
    const read = endPage(page, result, (row) => ({ at: row.created_at as string, id: row.id }));
    return { ...read, rows: read.rows.map(toRecord) };
  }

  /** Any file by id, for the signed routes (the signature is the authorisation); see findVisible. */
  async findById(id: string): Promise<FileRecord | undefined> {
    const rows = await this.transactions.query<FileRow>(`SELECT ${COLUMNS} FROM files f WHERE f.id = $1`, [id]);
    return rows[0] && toRecord(rows[0]);
  }

  /**
   * Makes a checked snapshot the file's content, in one statement and only if the file is still
   * PENDING, unexpired and the caller's to see: of concurrent completes one wins, and none commits
   * after the deadline, from which the sweep may delete the file's bytes. Undefined when it did not.
   *
   * Unexpired is also: its expiry not recorded. The deadline is read with the statement's clock,
   * which is when the statement began: one that began just before the deadline and waited for the
   * row while the sweep recorded the file's expiry (`file.expired`) would still find it unexpired.
   */
  async markCompleted(
    caller: AuthContext,
    id: string,
    commit: { objectKey: string; md5: string | undefined },
  ): Promise<FileRecord | undefined> {
    const rows = await this.transactions.query<FileRow>(
      `UPDATE files f SET status = 'COMPLETED', completed_at = statement_timestamp(), object_key = $5, md5 = $6
        WHERE f.id = $4 AND f.workspace_id = $1 AND f.status = 'PENDING' AND f.expires_at > statement_timestamp()
          AND NOT f.expiry_recorded AND ${VISIBLE_TO_CALLER}
        RETURNING ${COLUMNS}`,
      [...callerParams(caller), id, commit.objectKey, commit.md5 ?? null],
    );
    return rows[0] && toRecord(rows[0]);
  }

  /** Call in the transaction that locked the row (findVisible), so that the check and the cancel commit together. */
  async markCancelled(id: string): Promise<FileRecord> {
    const rows = await this.transactions.query<FileRow>(
      `UPDATE files f SET status = 'CANCELLED', cancelled_at = statement_timestamp()
        WHERE f.id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return toRecord(rows[0]);
  }

  /**
   * Claims files whose upload URL is dead (deadline passed) and whose leftovers were not yet
   * deleted, for `seconds`: other instances skip them meanwhile, and take them over when a claim
   * runs out before they are marked swept. One statement, so no row stays locked while storage works.
   */
  async claimSweepable(batch: number, seconds: number): Promise<FileRecord[]> {
    const rows = await this.transactions.query<FileRow>(
      `UPDATE files f SET sweep_claimed_until = statement_timestamp() + make_interval(secs => $2)
        WHERE f.id IN (SELECT id FROM files
                        WHERE swept_at IS NULL AND expires_at <= statement_timestamp()
                          AND (sweep_claimed_until IS NULL OR sweep_claimed_until <= statement_timestamp())
                        ORDER BY expires_at
                        ${firstRowsSql('$1')} FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
      [batch, seconds],
    );
    return rows.map(toRecord);
  }

  async existingIds(workspaceId: string, ids: string[]): Promise<string[]> {
    const rows: { id: string }[] = await this.transactions.query(
      `SELECT id FROM files WHERE workspace_id = $1 AND id = ANY($2)`,
      [workspaceId, ids],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Locks the file until the transaction ends when it is a COMPLETED file of the workspace, so
   * that whoever attaches it (a meeting's transcript) holds it meanwhile; false otherwise.
   */
  async lockCompleted(workspaceId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await this.transactions.query(
      `SELECT 1 FROM files WHERE id = $1 AND workspace_id = $2 AND status = 'COMPLETED' FOR UPDATE`,
      [id, workspaceId],
      { locks: true },
    );
    return rows.length > 0;
  }

  /**
   * Claims, in the ambient transaction, up to `batch` files that expired (PENDING past their
   * deadline) and whose expiry is not recorded yet, and marks it recorded: each expiry is recorded
   * once, whichever instance claims it. Answers them as read (EXPIRED).
   */
  async claimUnrecordedExpiries(batch: number): Promise<FileRecord[]> {
    const rows = await this.transactions.query<FileRow>(
      `UPDATE files f SET expiry_recorded = true
        WHERE f.id IN (SELECT id FROM files
                        WHERE status = 'PENDING' AND NOT expiry_recorded AND expires_at <= statement_timestamp()
                        ORDER BY expires_at ${firstRowsSql('$1')} FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
      [batch],
      { locks: true },
    );
    return rows.map(toRecord);
  }

  /** Narrows a list of files of the caller's workspace (another table's rows naming them) to those the caller may see. */
  visibleRestriction(caller: AuthContext): RecordRestriction {
    return (fileId, params) =>
      visibleToCallerSql(
        fileId,
        callerParams(caller).map((value) => params.add(value)),
      );
  }

  /** Which of `ids` are files of the caller's workspace that the caller may see (see findVisible). */
  async visibleIds(caller: AuthContext, ids: string[]): Promise<Set<string>> {
    const rows = await this.transactions.query<{ id: string }>(
      `SELECT f.id FROM files f WHERE f.id = ANY($4) AND f.workspace_id = $1 AND ${VISIBLE_TO_CALLER}`,
      [...callerParams(caller), ids],
    );
    return new Set(rows.map((row) => row.id));
  }

  async markSwept(ids: string[]): Promise<void> {
    await this.transactions.query(`UPDATE files SET swept_at = statement_timestamp() WHERE id = ANY($1)`, [ids]);
  }
}

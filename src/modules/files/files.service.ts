import { Injectable, Logger } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiError } from '../../common/errors/api-error';
import { PreparedWrites } from '../../common/idempotency/prepared-writes';
import { isIdOf, newId } from '../../common/ids';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { AppConfig } from '../../config/app-config';
import { type RowLock, Transactions } from '../../database/transactions';
import { ChangeEvents } from '../../records/change-events';
import type { RecordRestriction } from '../../records/record-pages';
import type { CompleteFileDto, CreateFileDto, CreatedFileDto, FileDto, FileUrlDto } from './dto/file.dto';
import { checkPurpose } from './file-purposes';
import { FileRecord, FilesRepository, toFileDto } from './files.repository';
import { FileStorage, unixSeconds } from './storage/file-storage';

function notPending(file: FileRecord, operation: string): ApiError {
  return new ApiError(409, 'invalid_state', `Only a PENDING file can be ${operation}; this file is ${file.status}`);
}

/** The `/v1/files` operations (spec: Files; docs/api.md §9, §10). */
@Injectable()
export class FilesService {
  private readonly logger = new Logger('FilesService');

  constructor(
    private readonly files: FilesRepository,
    private readonly storage: FileStorage,
    private readonly transactions: Transactions,
    private readonly writes: PreparedWrites,
    private readonly events: ChangeEvents,
    private readonly config: AppConfig,
  ) {}

  async create(caller: AuthContext, body: CreateFileDto): Promise<CreatedFileDto> {
    checkPurpose(body.purpose, body, caller.memberRole);
    const id = newId('file');
    const file = await this.files.insert({
      id,
      workspaceId: caller.workspaceId,
      memberId: caller.memberId,
      filename: body.filename,
      mimeType: body.mimeType,
      sizeBytes: body.sizeBytes,
      storageKey: `${caller.workspaceId}/${id}`,
      ttlSeconds: this.config.uploadTtlSeconds,
    });
    const target = await this.storage.uploadTarget(file, unixSeconds(file.deadline));
    return { ...toFileDto(file), uploadUrl: target.url, uploadHeaders: target.headers };
  }

  async get(caller: AuthContext, id: string): Promise<FileDto> {
    return toFileDto(await this.visible(caller, id));
  }

  async list(caller: AuthContext, page: PageRequest): Promise<PageResult<FileDto>> {
    const { rows, total, next } = await this.files.page(caller, page);
    return { data: rows.map(toFileDto), totalCount: total, next };
  }

  /**
   * Snapshots the upload, checks the snapshot's size against `sizeBytes` and, when given, its
   * `md5`, then makes it the file's content if the file is still PENDING. The storage calls run
   * outside any transaction (they can take long; a transaction would hold a pooled connection and
   * the row meanwhile): concurrent completes each check a snapshot of their own, one UPDATE decides
   * which one wins, and the others answer as a complete after it would. A snapshot that does not
   * become the content is deleted here, or by the sweep after a crash. After a failure the file
   * stays PENDING and can be uploaded again. With an Idempotency-Key the route prepares outside
   * the transaction too (PreparesOutsideTransaction): the UPDATE commits with the stored response.
   */
  async complete(caller: AuthContext, id: string, body: CompleteFileDto): Promise<FileDto> {
    const file = await this.visible(caller, id);
    if (file.status !== 'PENDING') throw notPending(file, 'completed');
    const snapshot = await this.storage.snapshot(file);
    if (snapshot === null) {
      throw new ApiError(422, 'size_mismatch', 'No bytes were uploaded for this file; PUT them to its uploadUrl first');
    }
    try {
      if (snapshot.size !== file.sizeBytes) {
        throw new ApiError(
          422,
          'size_mismatch',
          `The upload has ${snapshot.size} bytes; sizeBytes is ${file.sizeBytes}`,
        );
      }
      if (body.md5 !== undefined) {
        const actual = await this.storage.md5(snapshot.key);
        if (actual !== body.md5) {
          throw new ApiError(422, 'checksum_mismatch', `The uploaded bytes have MD5 ${actual}, not ${body.md5}`, 'md5');
        }
      }
      return await this.writes.commit(async () => {
        const completed = await this.files.markCompleted(caller, file.id, { objectKey: snapshot.key, md5: body.md5 });
        if (!completed) throw notPending(await this.visible(caller, id), 'completed');
        return this.recorded(caller, 'completed', toFileDto(completed));
      });
    } catch (error) {
      await this.storage.deleteSnapshot(snapshot.key).catch((failure: unknown) => {
        this.logger.warn({ err: failure, fileId: file.id }, 'an unused snapshot stays until the sweep');
      });
      throw error;
    }
  }

  async cancel(caller: AuthContext, id: string): Promise<FileDto> {
    return this.transactions.run(async () => {
      const file = await this.visible(caller, id, { lock: true });
      if (file.status !== 'PENDING') throw notPending(file, 'cancelled');
      return this.recorded(caller, 'cancelled', toFileDto(await this.files.markCancelled(file.id)));
    });
  }

  async downloadUrl(caller: AuthContext, id: string): Promise<FileUrlDto> {
    const file = await this.visible(caller, id);
    if (file.status !== 'COMPLETED') {
      throw new ApiError(409, 'invalid_state', `Only a COMPLETED file can be downloaded; this file is ${file.status}`);
    }
    const expires = unixSeconds() + this.config.downloadUrlTtlSeconds;
    return { url: await this.storage.downloadUrl(file, expires), expiresAt: new Date(expires * 1000).toISOString() };
  }

  /** Narrows rows naming files (another module's: the feed's events) to the files the caller may see, in their statement. */
  visibleRestriction(caller: AuthContext): RecordRestriction {
    return this.files.visibleRestriction(caller);
  }

  /** Which of `ids` the caller may see (another module's events name files: a webhook's delivery keeps these). */
  async visibleIds(caller: AuthContext, ids: string[]): Promise<Set<string>> {
    return this.files.visibleIds(caller, ids);
  }

  /**
   * Locks the file when it is COMPLETED, until the transaction ends, so that whoever attaches it
   * (a meeting's transcript) holds it meanwhile; false otherwise.
   */
  async lockCompleted(workspaceId: string, id: string): Promise<boolean> {
    return this.files.lockCompleted(workspaceId, id);
  }

  /**
   * The first `maxBytes` of the workspace's file `id` while it is COMPLETED (its bytes never change
   * after), else null: what another module indexes of a file it links to.
   */
  async completedStart(workspaceId: string, id: string, maxBytes: number): Promise<Uint8Array | null> {
    const file = await this.files.findById(id);
    if (!file || file.workspaceId !== workspaceId || file.status !== 'COMPLETED') return null;
    return this.storage.readStart(file, maxBytes);
  }

  /** `file` as it leaves PENDING, recorded as the event of that `action`. */
  private recorded(caller: AuthContext, action: 'completed' | 'cancelled', file: FileDto): FileDto {
    this.events.record({ workspaceId: caller.workspaceId, entityType: 'file', entityId: file.id, action, data: file });
    return file;
  }

  /** A malformed id, another workspace's file and a hidden transcript are all a plain 404. */
  private async visible(caller: AuthContext, id: string, options: RowLock = {}): Promise<FileRecord> {
    const file = isIdOf('file', id) ? await this.files.findVisible(caller, id, options) : undefined;
    if (!file) throw ApiError.notFound('File');
    return file;
  }
}

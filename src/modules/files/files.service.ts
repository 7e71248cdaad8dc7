import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiError } from '../../common/errors/api-error';
import { isIdOf, newId } from '../../common/ids';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
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
  constructor(
    private readonly files: FilesRepository,
    private readonly storage: FileStorage,
    private readonly transactions: Transactions,
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
    const { files, totalCount } = await this.files.page(caller, page.limit, page.offset);
    return { data: files.map(toFileDto), totalCount };
  }

  /**
   * Checks the stored bytes against `sizeBytes` and, when given, `md5`, then completes. The row
   * stays locked meanwhile, so a concurrent upload, cancel or complete waits; after a failure the
   * file stays PENDING and can be uploaded again.
   */
  async complete(caller: AuthContext, id: string, body: CompleteFileDto): Promise<FileDto> {
    return this.transactions.run(async (manager) => {
      const file = await this.visible(caller, id, manager);
      if (file.status !== 'PENDING') throw notPending(file, 'completed');
      const size = await this.storage.commit(file);
      if (size === null) {
        throw new ApiError(422, 'size_mismatch', 'No bytes were uploaded for this file; PUT them to its uploadUrl first');
      }
      if (size !== file.sizeBytes) {
        throw new ApiError(422, 'size_mismatch', `The upload has ${size} bytes; sizeBytes is ${file.sizeBytes}`);
      }
      if (body.md5 !== undefined) {
        const actual = await this.storage.md5(file);
        if (actual !== body.md5) {
          throw new ApiError(422, 'checksum_mismatch', `The uploaded bytes have MD5 ${actual}, not ${body.md5}`, 'md5');
        }
      }
      return toFileDto(await this.files.markCompleted(manager, file.id, body.md5));
    });
  }

  async cancel(caller: AuthContext, id: string): Promise<FileDto> {
    return this.transactions.run(async (manager) => {
      const file = await this.visible(caller, id, manager);
      if (file.status !== 'PENDING') throw notPending(file, 'cancelled');
      return toFileDto(await this.files.markCancelled(manager, file.id));
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

  /** A malformed id, another workspace's file and a hidden transcript are all a plain 404. */
  private async visible(caller: AuthContext, id: string, lockWith?: EntityManager): Promise<FileRecord> {
    const file = isIdOf('file', id) ? await this.files.findVisible(caller, id, lockWith) : undefined;
    if (!file) throw ApiError.notFound('File');
    return file;
  }
}

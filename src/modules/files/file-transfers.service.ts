import type { ReadStream } from 'node:fs';
import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '../../common/errors/api-error';
import type { SignedUrlQueryDto } from './dto/signed-url-query.dto';
import { lingerThenClose } from '../../common/http/linger';
import { isIdOf } from '../../common/ids';
import { FileRecord, FilesRepository } from './files.repository';
import { FileStorage, SignedRoutes, unixSeconds } from './storage/file-storage';
import type { SignedAction } from './storage/file-url-signer';

function invalidSignature(message: string): ApiError {
  return new ApiError(403, 'invalid_signature', message);
}

/**
 * The local driver's signed routes (docs/api.md §10): outside `/v1`, without API key, version,
 * scope, rate limit or JSON parser; the signature in the URL is the authorisation. A URL without
 * its `expires` and `signature` (or with malformed ones) is 400 `invalid_parameter` naming the
 * parameter (SignedUrlQueryDto); anything else that is not a URL this service issued, or one past
 * its expiry, is 403 `invalid_signature`.
 */
@Injectable()
export class FileTransfersService {
  constructor(
    private readonly storage: FileStorage,
    private readonly files: FilesRepository,
  ) {}

  /**
   * Streams the body into the file's storage: the content type must be the signed one (415), the
   * body at most `sizeBytes` long (413; reading stops soon after), the file PENDING (409), checked again
   * once the bytes are in place. Returns the MD5 of the bytes (the ETag).
   */
  async upload(id: string, query: SignedUrlQueryDto, request: Request): Promise<{ md5: string }> {
    try {
      const storage = this.local();
      const file = await this.signedFile(id, query, (found) => ({
        action: 'upload',
        fileId: found.id,
        contentType: found.mimeType,
        sizeBytes: found.sizeBytes,
      }));
      this.assertPending(file);
      const contentType = request.headers['content-type']?.trim();
      if (contentType !== file.mimeType) {
        throw new ApiError(
          415,
          'unsupported_media_type',
          `Send the bytes with Content-Type: ${file.mimeType}, as signed (got ${contentType ?? 'none'})`,
          'Content-Type',
        );
      }
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > file.sizeBytes) {
        throw new ApiError(
          413,
          'payload_too_large',
          `Content-Length ${declared} exceeds the file's sizeBytes (${file.sizeBytes})`,
        );
      }
      const received = await storage.receive(file, request, file.sizeBytes);
      try {
        await storage.place(received, file);
      } finally {
        await storage.discard(received); // a no-op once placed
      }
      await this.keepIfStillPending(storage, file);
      return { md5: received.md5 };
    } catch (error) {
      if (!request.complete) lingerThenClose(request, request.socket);
      throw error;
    }
  }

  /**
   * Takes back bytes placed after the file stopped being PENDING (409): placed with no transaction
   * open, so that no pooled connection or row waits on the disk, they may have landed after a
   * cancel or complete, or after the deadline and the sweep that deleted what the file had. Read
   * after placing, a PENDING file has not been swept yet, and its sweep will find these bytes. A
   * complete meanwhile snapshotted what it commits, so the upload is never its content.
   */
  private async keepIfStillPending(storage: SignedRoutes, file: FileRecord): Promise<void> {
    const current = await this.files.findById(file.id);
    if (current?.status === 'PENDING') return;
    await storage.withdraw(file);
    if (!current) throw ApiError.notFound('File');
    this.assertPending(current);
  }

  /** The bytes of a COMPLETED file, with what the response headers need. */
  async download(
    id: string,
    query: SignedUrlQueryDto,
  ): Promise<{ file: FileRecord; size: number; open: () => ReadStream }> {
    const storage = this.local();
    const file = await this.signedFile(id, query, (found) => ({ action: 'download', fileId: found.id }));
    const size = file.status === 'COMPLETED' ? await storage.sizeOf(file) : null;
    if (size === null) throw ApiError.notFound('File');
    return { file, size, open: () => storage.open(file) };
  }

  /** With S3 storage the bytes never pass through the service: these routes serve nothing. */
  private local(): SignedRoutes {
    if (this.storage.signedRoutes) return this.storage.signedRoutes;
    throw new ApiError(404, 'not_found', 'Files are stored in S3; use the URLs the API returns');
  }

  private async signedFile(
    id: string,
    query: SignedUrlQueryDto,
    signed: (file: FileRecord) => SignedAction,
  ): Promise<FileRecord> {
    const { expires, signature } = query;
    if (expires <= unixSeconds()) {
      throw invalidSignature(`The URL expired at ${new Date(expires * 1000).toISOString()}`);
    }
    const file = isIdOf('file', id) ? await this.files.findById(id) : undefined;
    if (!file || !this.local().signer.verify(signed(file), expires, signature)) {
      throw invalidSignature('The URL signature is not valid');
    }
    return file;
  }

  private assertPending(file: FileRecord): void {
    if (file.status !== 'PENDING') {
      throw new ApiError(409, 'invalid_state', `Only a PENDING file can be uploaded; this file is ${file.status}`);
    }
  }
}

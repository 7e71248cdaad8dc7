import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, ReadStream } from 'node:fs';
import { link, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ApiError } from '../../../common/errors/api-error';
import {
  committedKey,
  FileStorage,
  ReceivedUpload,
  SignedRoutes,
  Snapshot,
  snapshotKey,
  StoredFile,
  UploadTarget,
} from './file-storage';
import { FileUrlSigner } from './file-url-signer';

/**
 * The default driver: bytes under `DATA_DIR/files/{workspaceId}/{fileId}`, uploaded and downloaded
 * through the service's own signed routes (`PUT /uploads/{id}`, `GET /downloads/{id}`). An upload
 * streams to a partial file that replaces the final one by rename, so a reader never sees half a
 * file. A snapshot is a hard link beside it: the bytes stay where they are, and a later upload
 * replaces the upload's link, never the snapshot's. Files completed before snapshots existed are
 * served from the upload's path, which then is their committed key.
 */
export class LocalFileStorage extends FileStorage implements SignedRoutes {
  readonly driver = 'local' as const;
  readonly signedRoutes: SignedRoutes = this;
  private readonly root: string;
  private readonly partials: string;

  constructor(
    dataDir: string,
    private readonly publicUrl: string,
    readonly signer: FileUrlSigner,
  ) {
    super();
    this.root = path.join(dataDir, 'files');
    this.partials = path.join(this.root, '.partial');
  }

  private pathOf(key: string): string {
    return path.join(this.root, key);
  }

  async uploadTarget(file: StoredFile, expires: number): Promise<UploadTarget> {
    const query = this.signer.query(
      { action: 'upload', fileId: file.id, contentType: file.mimeType, sizeBytes: file.sizeBytes },
      expires,
    );
    return { url: `${this.publicUrl}/uploads/${file.id}?${query}`, headers: { 'content-type': file.mimeType } };
  }

  async snapshot(file: StoredFile): Promise<Snapshot | null> {
    const key = snapshotKey(file);
    try {
      await link(this.pathOf(file.storageKey), this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return { key, size: (await stat(this.pathOf(key))).size };
  }

  async md5(key: string): Promise<string> {
    const hash = createHash('md5');
    for await (const chunk of createReadStream(this.pathOf(key))) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  async deleteSnapshot(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async readStart(file: StoredFile, bytes: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of createReadStream(this.pathOf(committedKey(file)), { start: 0, end: bytes - 1 }))
      chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async downloadUrl(file: StoredFile, expires: number): Promise<string> {
    return `${this.publicUrl}/downloads/${file.id}?${this.signer.query({ action: 'download', fileId: file.id }, expires)}`;
  }

  /** Size of the committed bytes, or null when there are none. */
  async sizeOf(file: StoredFile): Promise<number | null> {
    if (file.objectKey === null) return null;
    try {
      return (await stat(this.pathOf(file.objectKey))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  open(file: StoredFile): ReadStream {
    return createReadStream(this.pathOf(committedKey(file)));
  }

  /** The upload and the snapshots beside it (`{fileId}.…`), but the committed bytes. */
  async deleteUnused(file: StoredFile): Promise<void> {
    const directory = path.dirname(this.pathOf(file.storageKey));
    const kept = file.objectKey === null ? undefined : this.pathOf(file.objectKey);
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const name of names) {
      const found = path.join(directory, name);
      if ((name === file.id || name.startsWith(`${file.id}.`)) && found !== kept) await rm(found, { force: true });
    }
  }

  /**
   * Streams `body` into a partial file, with backpressure and never holding more than a chunk.
   * Past `limit` bytes it stops reading (the body is left unread, not destroyed, so that the
   * caller can still answer 413) and deletes what it wrote.
   */
  async receive(file: StoredFile, body: Readable, limit: number): Promise<ReceivedUpload> {
    await mkdir(this.partials, { recursive: true });
    const partial = path.join(this.partials, `${file.id}.${randomBytes(6).toString('hex')}`);
    const out = createWriteStream(partial, { flags: 'wx' });
    const hash = createHash('md5');
    let bytes = 0;
    try {
      for await (const chunk of body.iterator({ destroyOnReturn: false })) {
        const buffer = chunk as Buffer;
        bytes += buffer.length;
        if (bytes > limit) {
          throw new ApiError(413, 'payload_too_large', `The body is longer than the file's sizeBytes (${limit})`);
        }
        hash.update(buffer);
        if (!out.write(buffer)) await once(out, 'drain');
      }
      out.end();
      await finished(out);
    } catch (error) {
      out.destroy();
      await rm(partial, { force: true });
      throw error;
    }
    return { partial, bytes, md5: hash.digest('hex') };
  }

  /** Makes a received upload the file's bytes, atomically replacing an earlier upload. */
  async place(upload: ReceivedUpload, file: StoredFile): Promise<void> {
    const target = this.pathOf(file.storageKey);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(upload.partial, target);
  }

  /**
   * Deletes the file's upload, of a file that was PENDING when it began: whatever it has committed
   * since is a snapshot, at a key of its own.
   */
  async withdraw(file: StoredFile): Promise<void> {
    await rm(this.pathOf(file.storageKey), { force: true });
  }

  async discard(upload: ReceivedUpload): Promise<void> {
    await rm(upload.partial, { force: true });
  }
}

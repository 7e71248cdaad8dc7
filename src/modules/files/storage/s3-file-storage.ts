import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Settings } from '../../../config/app-config';
import {
  committedKey,
  contentDisposition,
  FileStorage,
  Snapshot,
  snapshotKey,
  StoredFile,
  UploadTarget,
  unixSeconds,
} from './file-storage';

function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata?.httpStatusCode === 404)
  );
}

/**
 * An S3-compatible bucket. The client uploads with a presigned PUT to `uploads/{key}` whose
 * signature covers `content-type` and `content-length`: the server refuses another type or another
 * number of bytes. A snapshot copies the upload under `files/`, which only the service writes, so
 * the upload URL (valid until the session's deadline, whatever happens to the file) can never
 * change a completed file's bytes; the sweep deletes the upload copy once that URL is dead.
 * Checksums only when required (Ceph radosgw and other S3 servers refuse the SDK's default ones).
 */
export class S3FileStorage extends FileStorage {
  readonly driver = 's3' as const;
  readonly signedRoutes = null;
  readonly client: S3Client;
  readonly bucket: string;

  constructor(settings: S3Settings) {
    super();
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  uploadKey(file: StoredFile): string {
    return `uploads/${file.storageKey}`;
  }

  /** A snapshot's object; files completed before snapshots existed have their storageKey as key. */
  objectPath(key: string): string {
    return `files/${key}`;
  }

  async uploadTarget(file: StoredFile, expires: number): Promise<UploadTarget> {
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.uploadKey(file),
      ContentType: file.mimeType,
      ContentLength: file.sizeBytes,
    });
    const url = await getSignedUrl(this.client, command, {
      expiresIn: Math.max(1, expires - unixSeconds()),
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url, headers: { 'content-type': file.mimeType } };
  }

  async snapshot(file: StoredFile): Promise<Snapshot | null> {
    const key = snapshotKey(file);
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: this.objectPath(key),
          CopySource: encodeURI(`${this.bucket}/${this.uploadKey(file)}`),
          ContentType: file.mimeType,
          MetadataDirective: 'REPLACE',
        }),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
    const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectPath(key) }));
    return { key, size: head.ContentLength ?? 0 };
  }

  async md5(key: string): Promise<string> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectPath(key) }));
    const hash = createHash('md5');
    for await (const chunk of object.Body as Readable) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  async readStart(file: StoredFile, bytes: number): Promise<Buffer> {
    const object = await this.client.send(
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.objectPath(committedKey(file)),
        Range: `bytes=0-${bytes - 1}`,
      }),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of object.Body as Readable) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async deleteSnapshot(key: string): Promise<void> {
    await this.delete(this.objectPath(key));
  }

  async downloadUrl(file: StoredFile, expires: number): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectPath(committedKey(file)),
      ResponseContentType: file.mimeType,
      ResponseContentDisposition: contentDisposition(file.filename),
    });
    return getSignedUrl(this.client, command, { expiresIn: Math.max(1, expires - unixSeconds()) });
  }

  /** The upload, and every object under `files/{storageKey}` (ids have one length) but the committed one. */
  async deleteUnused(file: StoredFile): Promise<void> {
    await this.delete(this.uploadKey(file));
    const kept = file.objectKey === null ? undefined : this.objectPath(file.objectKey);
    let continuation: string | undefined;
    do {
      const listed = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.objectPath(file.storageKey),
          ContinuationToken: continuation,
        }),
      );
      for (const object of listed.Contents ?? []) {
        if (object.Key !== kept) await this.delete(object.Key!);
      }
      continuation = listed.NextContinuationToken;
    } while (continuation);
  }

  override close(): void {
    this.client.destroy();
  }

  /** Deleting a key that does not exist succeeds in S3. */
  private async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}

import { randomBytes } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import formatContentDisposition from 'content-disposition';
import type { FileUrlSigner } from './file-url-signer';

/** What the storage drivers need to know of a file. */
export interface StoredFile {
  id: string;
  workspaceId: string;
  /** `{workspaceId}/{fileId}`, relative to the driver's root: where the upload lands, beside its snapshots. */
  storageKey: string;
  /** Where the committed bytes are, relative to the driver's root; null until COMPLETED. */
  objectKey: string | null;
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

export interface UploadTarget {
  url: string;
  headers: Record<string, string>;
}

/** A copy of what was uploaded, at a key no one else writes: what a complete checks and commits. */
export interface Snapshot {
  key: string;
  size: number;
}

export interface ReceivedUpload {
  /** A partial file beside the final one, to `place` or `discard`. */
  partial: string;
  bytes: number;
  md5: string;
}

/** A driver whose bytes pass through the service's own signed routes (`PUT /uploads`, `GET /downloads`). */
export interface SignedRoutes {
  readonly signer: FileUrlSigner;
  /** Streams a body to a partial file; past `limit` bytes it stops reading and answers 413. */
  receive(file: StoredFile, body: Readable, limit: number): Promise<ReceivedUpload>;
  /** Makes a received upload the file's bytes, atomically replacing an earlier upload. */
  place(upload: ReceivedUpload, file: StoredFile): Promise<void>;
  discard(upload: ReceivedUpload): Promise<void>;
  /** Deletes the upload of a file that was PENDING when it began. */
  withdraw(file: StoredFile): Promise<void>;
  /** Size of the committed bytes, or null when there are none. */
  sizeOf(file: StoredFile): Promise<number | null>;
  open(file: StoredFile): ReadStream;
}

/**
 * Where file bytes live (docs/api.md §10). Both drivers keep one contract: the client PUTs the bytes
 * to a signed URL with exactly the returned headers, before `expires`; a wrong signature, an
 * expired URL, another content type or more bytes than `sizeBytes` are refused by whoever receives
 * them. Once committed, the bytes of a file never change. Times are unix seconds.
 *
 * Storage can be slow: the service calls these outside its own transactions, which would hold one
 * of the few pooled connections (and row locks) for as long as they wait.
 */
export abstract class FileStorage {
  abstract readonly driver: 'local' | 's3';

  /**
   * The driver's own upload and download routes, or null when clients send and fetch the bytes
   * from the store itself (S3): then `/uploads` and `/downloads` serve nothing.
   */
  abstract readonly signedRoutes: SignedRoutes | null;

  /** Where and how the client uploads the bytes, until `expires`. */
  abstract uploadTarget(file: StoredFile, expires: number): Promise<UploadTarget>;

  /**
   * Copies what was uploaded to a new key under the file's own (`{storageKey}.{random}`), beyond
   * the reach of the upload URL and of any other complete of the same file, or null when nothing
   * was uploaded. The copy is the file's content once its key is committed as `objectKey`; until
   * then it is the caller's to delete, and the sweep deletes what a crash left.
   */
  abstract snapshot(file: StoredFile): Promise<Snapshot | null>;

  /** MD5 (lowercase hex) of a snapshot's bytes, read as a stream. */
  abstract md5(key: string): Promise<string>;

  abstract deleteSnapshot(key: string): Promise<void>;

  /** Up to the first `bytes` of the committed bytes (what search indexes of a transcript). */
  abstract readStart(file: StoredFile, bytes: number): Promise<Buffer>;

  /** A URL serving the committed bytes with the file's content type and filename, until `expires`. */
  abstract downloadUrl(file: StoredFile, expires: number): Promise<string>;

  /**
   * Deletes every byte stored for the file but its committed ones (all of them when it has none):
   * the upload and snapshots that never became its content. Only once its upload URL is dead and
   * no complete can commit any more, so that nothing is written after.
   */
  abstract deleteUnused(file: StoredFile): Promise<void>;

  /** Releases connections; called on shutdown. */
  close(): void {}
}

/** A key of the file's own for one snapshot: never reused, so no two completes share one. */
export function snapshotKey(file: StoredFile): string {
  return `${file.storageKey}.${randomBytes(8).toString('hex')}`;
}

/** The key of the committed bytes: only a COMPLETED file has any to serve. */
export function committedKey(file: StoredFile): string {
  if (file.objectKey === null) throw new Error(`File ${file.id} has no committed bytes`);
  return file.objectKey;
}

/**
 * `attachment` with the filename (RFC 6266), safe whatever the name holds (quotes, CR/LF, …): the
 * name as RFC 8187 `filename*=UTF-8''…` whenever the quoted one cannot be it exactly.
 */
export function contentDisposition(filename: string): string {
  // The package keeps only what follows the last "/" or "\", as of a path: a name here is not one,
  // and keeps its parts the way browsers save them.
  const name = filename.replace(/[/\\]/g, '_');
  // The quoted name, for clients without RFC 8187: ASCII, without the "%" that some decode (RFC 6266
  // appendix D) and without the '"' that the package would escape with a "\" some do not undo.
  return formatContentDisposition(name, { fallback: name.replace(/[^\x20-\x7e]|["%]/g, '_') });
}

export function unixSeconds(date: Date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}

/** What the storage drivers need to know of a file. */
export interface StoredFile {
  id: string;
  workspaceId: string;
  /** `{workspaceId}/{fileId}`: where the driver keeps the bytes, relative to its root. */
  storageKey: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

export interface UploadTarget {
  url: string;
  headers: Record<string, string>;
}

/**
 * Where file bytes live (docs/api.md §10). Both drivers keep one contract: the client PUTs the bytes
 * to a signed URL with exactly the returned headers, before `expires`; a wrong signature, an
 * expired URL, another content type or more bytes than `sizeBytes` are refused by whoever receives
 * them. Once committed, the bytes of a file never change. Times are unix seconds.
 */
export abstract class FileStorage {
  abstract readonly driver: 'local' | 's3';

  /** Where and how the client uploads the bytes, until `expires`. */
  abstract uploadTarget(file: StoredFile, expires: number): Promise<UploadTarget>;

  /**
   * Fixes what was uploaded as the file's content, beyond the reach of the upload URL, and returns
   * its size in bytes, or null when nothing was uploaded.
   */
  abstract commit(file: StoredFile): Promise<number | null>;

  /** MD5 (lowercase hex) of the committed bytes, read as a stream. */
  abstract md5(file: StoredFile): Promise<string>;

  /** A URL serving the committed bytes with the file's content type and filename, until `expires`. */
  abstract downloadUrl(file: StoredFile, expires: number): Promise<string>;

  /** Deletes every byte stored for an upload that will never complete. */
  abstract deleteAll(file: StoredFile): Promise<void>;

  /** Deletes what a completed file's upload URL may have left beside its committed bytes. */
  abstract deleteUploadLeftovers(file: StoredFile): Promise<void>;

  /** Releases connections; called on shutdown. */
  close(): void {}
}

/**
 * `attachment` with the filename twice (RFC 6266): an ASCII fallback for old clients, and the
 * exact name as RFC 8187 `filename*=UTF-8''…`. Safe whatever the name holds (quotes, CR/LF, …).
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export function unixSeconds(date: Date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}

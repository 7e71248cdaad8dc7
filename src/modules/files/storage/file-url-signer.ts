import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { AppConfig } from '../../../config/app-config';

/**
 * The key of the local driver's URL signatures: FILE_URL_SECRET when set; else derived from
 * ADMIN_TOKEN (so instances sharing the token agree); else generated once and kept in DATA_DIR,
 * which instances of the local driver share anyway (the bytes live there too).
 */
export function resolveFileUrlSecret(config: AppConfig): Buffer {
  if (config.fileUrlSecret) return Buffer.from(config.fileUrlSecret, 'utf8');
  if (config.adminToken) return createHmac('sha256', config.adminToken).update('file-url-secret').digest();
  const file = path.join(config.dataDir, 'file-url-secret');
  mkdirSync(config.dataDir, { recursive: true });
  try {
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
}

export type SignedAction =
  { action: 'upload'; fileId: string; contentType: string; sizeBytes: number } | { action: 'download'; fileId: string };

function canonical(signed: SignedAction, expires: number): string {
  return signed.action === 'upload'
    ? ['upload', signed.fileId, signed.contentType, signed.sizeBytes, expires].join('\n')
    : ['download', signed.fileId, expires].join('\n');
}

/**
 * HMAC-SHA256 signatures of the local upload and download URLs: over the action, the file id,
 * for uploads the content type and size, and the expiry (unix seconds).
 */
export class FileUrlSigner {
  constructor(private readonly secret: Buffer) {}

  sign(signed: SignedAction, expires: number): string {
    return createHmac('sha256', this.secret).update(canonical(signed, expires)).digest('base64url');
  }

  /** The query string of a signed URL. */
  query(signed: SignedAction, expires: number): string {
    return `expires=${expires}&signature=${this.sign(signed, expires)}`;
  }

  verify(signed: SignedAction, expires: number, signature: string): boolean {
    const expected = Buffer.from(this.sign(signed, expires), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

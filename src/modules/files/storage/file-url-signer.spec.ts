import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../../config/app-config';
import { contentDisposition } from './file-storage';
import { FileUrlSigner, resolveFileUrlSecret } from './file-url-signer';

const upload = {
  action: 'upload',
  fileId: 'fil_01JD6Y3Z8Q0N5V4W7X2C9B1A3E',
  contentType: 'text/plain',
  sizeBytes: 10,
} as const;

describe('resolveFileUrlSecret', () => {
  const dataDir = () => mkdtempSync(path.join(tmpdir(), 'file-secret-'));

  it('uses FILE_URL_SECRET when set', () => {
    const secret = 'x'.repeat(40);
    expect(resolveFileUrlSecret(loadConfig({ FILE_URL_SECRET: secret, DATA_DIR: dataDir() })).toString()).toBe(secret);
  });

  it('derives one from ADMIN_TOKEN, the same for every instance sharing the token', () => {
    const a = resolveFileUrlSecret(loadConfig({ ADMIN_TOKEN: 'a'.repeat(20), DATA_DIR: dataDir() }));
    const b = resolveFileUrlSecret(loadConfig({ ADMIN_TOKEN: 'a'.repeat(20), DATA_DIR: dataDir() }));
    const c = resolveFileUrlSecret(loadConfig({ ADMIN_TOKEN: 'c'.repeat(20), DATA_DIR: dataDir() }));
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    expect(a.toString('hex')).not.toContain(Buffer.from('a'.repeat(20)).toString('hex'));
  });

  it('otherwise generates one, keeps it in DATA_DIR (owner-only) and reuses it', () => {
    const dir = dataDir();
    const first = resolveFileUrlSecret(loadConfig({ NODE_ENV: 'production', DATA_DIR: dir }));
    const second = resolveFileUrlSecret(loadConfig({ NODE_ENV: 'production', DATA_DIR: dir }));
    expect(first.equals(second)).toBe(true);
    expect(first.length).toBeGreaterThanOrEqual(32);
    const file = path.join(dir, 'file-url-secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.toString());
    expect(statSync(file).mode & 0o077).toBe(0);
  });
});

describe('FileUrlSigner', () => {
  const signer = new FileUrlSigner(Buffer.from('k'.repeat(32)));
  const expires = 2_000_000_000;

  it('verifies its own signatures, base64url without padding', () => {
    const signature = signer.sign(upload, expires);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.verify(upload, expires, signature)).toBe(true);
    expect(signer.query(upload, expires)).toBe(`expires=${expires}&signature=${signature}`);
  });

  it.each([
    ['another file', { ...upload, fileId: 'fil_01JD6Y3Z8Q0N5V4W7X2C9B1A3F' }, expires],
    ['another content type', { ...upload, contentType: 'text/html' }, expires],
    ['another size', { ...upload, sizeBytes: 11 }, expires],
    ['another expiry', upload, expires + 1],
    ['a download of the same file', { action: 'download', fileId: upload.fileId } as const, expires],
  ])('refuses the signature for %s', (_name, signed, at) => {
    expect(signer.verify(signed, at, signer.sign(upload, expires))).toBe(false);
  });

  it('refuses another key, and garbage of any length', () => {
    const other = new FileUrlSigner(Buffer.from('o'.repeat(32)));
    expect(signer.verify(upload, expires, other.sign(upload, expires))).toBe(false);
    expect(signer.verify(upload, expires, '')).toBe(false);
    expect(signer.verify(upload, expires, 'x'.repeat(500))).toBe(false);
  });
});

describe('contentDisposition', () => {
  it.each([
    // A name the quoted form holds exactly needs no RFC 8187 form beside it.
    ['report.pdf', `attachment; filename="report.pdf"`],
    ["it's*.txt", `attachment; filename="it's*.txt"`],
    ['Résumé (v2).pdf', `attachment; filename="R_sum_ (v2).pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%28v2%29.pdf`],
    ['a"b%d.txt', `attachment; filename="a_b_d.txt"; filename*=UTF-8''a%22b%25d.txt`],
    ['日本.txt', `attachment; filename="__.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt`],
    // Not a path: nothing before a separator is dropped.
    ['Q1/Q2\\plan.txt', `attachment; filename="Q1_Q2_plan.txt"`],
  ])('writes %p as an RFC 6266 attachment with an ASCII fallback', (filename, header) => {
    expect(contentDisposition(filename)).toBe(header);
  });

  it('never lets a line break or control character into the header', () => {
    expect(contentDisposition('a\r\nSet-Cookie: x\u0000.txt')).not.toMatch(/[\r\n]/);
    expect(contentDisposition('a\r\nSet-Cookie: x\u0000.txt')).not.toContain('\u0000');
  });
});

import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { newId } from '../../src/common/ids';
import { FileSweeper } from '../../src/modules/files/file-sweeper';
import { FilesRepository } from '../../src/modules/files/files.repository';
import { MIB } from '../../src/modules/files/file-purposes';
import { FileStorage } from '../../src/modules/files/storage/file-storage';
import { ByteBody, ByteResponse, freePort, md5, sendBytes } from './byte-http';
import { concurrently, Gate } from './concurrency';
import { expectError } from './errors';
import { createKey, createMember, createWorkspace, TestWorkspace } from './factories';
import { OpenApiValidator } from './openapi';
import { expectRateLimitHeaders } from './rate-limit';
import { createTestApp, TestApp, v1Headers } from './test-app';

export type UploadRefusal = 'signature' | 'expired' | 'content_type' | 'too_large';

/** What differs between storage drivers; everything else is one contract (docs/api.md §10). */
export interface FilesDriver {
  name: string;
  /** Environment selecting the driver. */
  env(): Record<string, string>;
  /** What is stored for the file, sorted: its upload and its snapshots (a committed one included). */
  stored(t: TestApp, file: { id: string; workspaceId: string }): Promise<string[]>;
  /** How the receiver of the upload URL refuses `reason`. */
  expectUploadRefused(response: ByteResponse, reason: UploadRefusal): void;
  /** How a forged or expired download URL is refused. */
  expectDownloadRefused(response: ByteResponse): void;
  /** A body shorter than sizeBytes: stored by one driver (complete refuses it), refused at once by another. */
  expectShortUpload(response: ByteResponse): void;
  /** An upload after the file left PENDING: refused, or taken where no one reads it. */
  expectLateUpload(response: ByteResponse): void;
}

export interface FilesApp extends TestApp {
  openapi: OpenApiValidator;
  dataSource: DataSource;
}

/** The app on a real port, so that uploadUrl and download URLs work as returned. */
export async function startFilesApp(driver: FilesDriver, env: Record<string, string> = {}): Promise<FilesApp> {
  // The port is chosen before the app that must know it (PUBLIC_URL) is made: another process, or an
  // outgoing connection given it as its ephemeral port, may take it meanwhile. Then another is chosen.
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const t = await createTestApp({
      env: { ...driver.env(), PUBLIC_URL: `http://127.0.0.1:${port}`, FILE_SWEEP_INTERVAL_SECONDS: '0', ...env },
    });
    try {
      await t.app.listen(port, '127.0.0.1');
      return { ...t, openapi: new OpenApiValidator(t.document), dataSource: t.app.get(DataSource) };
    } catch (error) {
      await t.close();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 5) throw error;
    }
  }
}

interface CreatedFile {
  id: string;
  uploadUrl: string;
  uploadHeaders: Record<string, string>;
  [member: string]: unknown;
}

/** Calls of the `/v1/files` routes for one app and key, each response checked against the OpenAPI document. */
export function filesClient(t: FilesApp, key: string) {
  const checked = async (response: Promise<Response> | Response): Promise<Response> => {
    const awaited = await response;
    t.openapi.assert(awaited);
    return awaited;
  };
  return {
    create: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      checked(t.http.post('/v1/files').set(v1Headers(key)).set(headers).send(body)),
    get: (id: string) => checked(t.http.get(`/v1/files/${id}`).set(v1Headers(key))),
    list: (query = '') => checked(t.http.get(`/v1/files${query}`).set(v1Headers(key))),
    complete: (id: string, body?: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const request = t.http.post(`/v1/files/${id}/complete`).set(v1Headers(key)).set(headers);
      return checked(body === undefined ? request : request.send(body));
    },
    cancel: (id: string, body?: Record<string, unknown>) => {
      const request = t.http.post(`/v1/files/${id}/cancel`).set(v1Headers(key));
      return checked(body === undefined ? request : request.send(body));
    },
    url: (id: string) => checked(t.http.get(`/v1/files/${id}/url`).set(v1Headers(key))),
    /** Creates a file, asserting success. */
    async created(body: Record<string, unknown>): Promise<CreatedFile> {
      const response = await this.create(body);
      expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: expect.anything() });
      return response.body as CreatedFile;
    },
  };
}

/** PUT to an uploadUrl with its uploadHeaders (and any overrides); our routes' answers are checked against the document. */
export async function upload(
  t: FilesApp,
  file: CreatedFile,
  body: ByteBody,
  options: { headers?: Record<string, string>; url?: string } = {},
): Promise<ByteResponse> {
  const response = await sendBytes(options.url ?? file.uploadUrl, {
    method: 'PUT',
    headers: { ...file.uploadHeaders, ...options.headers },
    body,
  });
  assertIfOurs(t, response, options.url ?? file.uploadUrl);
  return response;
}

export async function download(t: FilesApp, url: string): Promise<ByteResponse> {
  const response = await sendBytes(url);
  assertIfOurs(t, response, url);
  return response;
}

function assertIfOurs(t: FilesApp, response: ByteResponse, url: string): void {
  if (url.startsWith(t.config.publicUrl)) t.openapi.assert(response as unknown as Response);
}

/** How many of the app's pooled connections are taken now: by an open transaction, or a statement in flight. */
export function connectionsInUse(t: FilesApp): number {
  const pool = (t.dataSource.driver as PostgresDriver).master as Pool;
  return pool.totalCount - pool.idleCount;
}

/** The same URL with one character of its signature changed. */
/** Every complete of `t` takes its snapshot, then waits at `gate` until the test opens it. */
function holdSnapshots(t: FilesApp): { gate: Gate; held: jest.SpyInstance } {
  const storage = t.app.get(FileStorage);
  const snapshot = storage.snapshot.bind(storage);
  const gate = new Gate();
  const held = jest.spyOn(storage, 'snapshot').mockImplementation(async (stored) => {
    const taken = await snapshot(stored);
    await gate.pass();
    return taken;
  });
  return { gate, held };
}

export function tampered(url: string): string {
  const parsed = new URL(url);
  const name = parsed.searchParams.has('X-Amz-Signature') ? 'X-Amz-Signature' : 'signature';
  const signature = parsed.searchParams.get(name)!;
  const last = signature.slice(-1);
  parsed.searchParams.set(name, `${signature.slice(0, -1)}${last === 'a' ? 'b' : 'a'}`);
  return parsed.toString();
}

/** The files contract (spec: Files; docs/api.md §2, §9, §10), run on each storage driver. */
export function describeFilesContract(driver: FilesDriver): void {
  describe(`files on the ${driver.name} storage driver`, () => {
    let t: FilesApp;
    let ws: TestWorkspace;
    let other: TestWorkspace;
    let api: ReturnType<typeof filesClient>;

    async function completedFile(
      bytes: string,
      extra: Record<string, unknown> = {},
      client = api,
    ): Promise<CreatedFile> {
      const file = await client.created({
        filename: 'notes.txt',
        mimeType: 'text/plain',
        sizeBytes: Buffer.byteLength(bytes),
        ...extra,
      });
      expect((await upload(t, file, bytes)).status).toBe(200);
      expect((await client.complete(file.id, { md5: md5(bytes) })).status).toBe(200);
      return file;
    }

    beforeAll(async () => {
      t = await startFilesApp(driver);
      ws = await createWorkspace(t.http);
      other = await createWorkspace(t.http);
      api = filesClient(t, ws.key);
    });
    afterAll(() => t?.close());

    it('creates a session, takes the bytes at uploadUrl, completes with md5 and serves them back', async () => {
      const bytes = Buffer.from('WEBVTT\n\n00:00.000 --> 00:01.000\nHello, «world»\n', 'utf8');
      const created = await api.create({
        filename: 'Résumé "final".vtt',
        mimeType: 'text/vtt',
        sizeBytes: bytes.length,
      });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^fil_[0-9A-HJKMNP-TV-Z]{26}$/),
        createdAt: expect.any(String),
        completedAt: null,
        expiresAt: expect.any(String),
        filename: 'Résumé "final".vtt',
        mimeType: 'text/vtt',
        sizeBytes: bytes.length,
        status: 'PENDING',
        uploadUrl: expect.stringMatching(/^https?:\/\//),
        uploadHeaders: { 'content-type': 'text/vtt' },
      });
      const file = created.body as CreatedFile;
      const lifetime = Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt);
      expect(lifetime).toBeGreaterThan(3599_000 - 1000);
      expect(lifetime).toBeLessThanOrEqual(3600_000);
      expect(file.uploadUrl).not.toContain('/v1/');

      const pending = await api.get(file.id);
      const { uploadUrl: _url, uploadHeaders: _headers, ...resource } = created.body;
      expect(pending.body).toEqual(resource);

      // No Authorization, no Service-Version: the URL is the authorisation.
      const put = await upload(t, file, bytes);
      expect(put.status).toBe(200);
      const completed = await api.complete(file.id, { md5: md5(bytes) });
      expect(completed.status).toBe(200);
      expect(completed.body).toEqual({
        ...resource,
        status: 'COMPLETED',
        expiresAt: null,
        completedAt: expect.any(String),
      });
      expect(Date.parse(completed.body.completedAt)).toBeGreaterThanOrEqual(Date.parse(resource.createdAt));
      expect((await api.get(file.id)).body).toEqual(completed.body);

      const url = await api.url(file.id);
      expect(url.status).toBe(200);
      expect(Object.keys(url.body).sort()).toEqual(['expiresAt', 'url']);
      expect(url.body.url).not.toContain('/v1/');
      const validFor = Date.parse(url.body.expiresAt) - Date.now();
      expect(validFor).toBeGreaterThan(890_000);
      expect(validFor).toBeLessThanOrEqual(900_000);
      const got = await download(t, url.body.url);
      expect(got.status).toBe(200);
      expect(got.raw.equals(bytes)).toBe(true);
      expect(got.headers['content-type']).toBe('text/vtt');
      expect(got.headers['content-disposition']).toBe(
        `attachment; filename="R_sum_ _final_.vtt"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22.vtt`,
      );
    });

    it('completes without md5 on the size alone, and a second upload before completion replaces the first', async () => {
      const file = await api.created({ filename: 'a.bin', mimeType: 'application/octet-stream', sizeBytes: 6 });
      expect((await upload(t, file, 'first!')).status).toBe(200);
      expect((await upload(t, file, 'second')).status).toBe(200);
      const completed = await api.complete(file.id);
      expect(completed.body.status).toBe('COMPLETED');
      const got = await download(t, (await api.url(file.id)).body.url);
      expect(got.text).toBe('second');
      expect(got.headers['content-type']).toBe('application/octet-stream');
    });

    it('refuses a complete whose bytes are missing, short or of another md5, and the file stays PENDING', async () => {
      const file = await api.created({ filename: 'x.txt', mimeType: 'text/plain', sizeBytes: 10 });
      expectError(await api.complete(file.id, {}), 422, 'size_mismatch');
      driver.expectShortUpload(await upload(t, file, '123456789'));
      expectError(await api.complete(file.id), 422, 'size_mismatch');
      expect((await api.get(file.id)).body.status).toBe('PENDING');
      expect((await upload(t, file, '0123456789')).status).toBe(200);
      expectError(await api.complete(file.id, { md5: md5('9876543210') }), 422, 'checksum_mismatch', 'md5');
      expect((await api.get(file.id)).body).toMatchObject({
        status: 'PENDING',
        completedAt: null,
        expiresAt: expect.any(String),
      });
      expectError(await api.complete(file.id, { md5: md5('0123456789').toUpperCase() }), 422, 'invalid_value', 'md5');
      expectError(await api.complete(file.id, { md5: 'abc' }), 422, 'invalid_value', 'md5');
      expectError(await api.complete(file.id, { md5: 5 }), 400, 'invalid_type', 'md5');
      expectError(await api.complete(file.id, { sha1: 'x' }), 400, 'unknown_field', 'sha1');
      expect((await api.complete(file.id, { md5: md5('0123456789') })).body.status).toBe('COMPLETED');
    });

    it('refuses uploads with a forged signature, to another file, of another content type or longer than sizeBytes', async () => {
      const file = await api.created({ filename: 'y.txt', mimeType: 'text/plain', sizeBytes: 1024 });
      const sibling = await api.created({ filename: 'z.txt', mimeType: 'text/plain', sizeBytes: 1024 });
      const bytes = Buffer.alloc(1024, 'y');
      driver.expectUploadRefused(await upload(t, file, bytes, { url: tampered(file.uploadUrl) }), 'signature');
      driver.expectUploadRefused(
        await upload(t, file, bytes, { url: file.uploadUrl.replace(file.id, sibling.id) }),
        'signature',
      );
      driver.expectUploadRefused(
        await upload(t, file, bytes, { headers: { 'content-type': 'text/html' } }),
        'content_type',
      );
      driver.expectUploadRefused(await upload(t, file, Buffer.alloc(1025, 'y')), 'too_large');
      // A streamed (chunked) body far longer than sizeBytes: refused, and reading stops.
      const endless = async function* () {
        for (let i = 0; i < 4096; i += 1) yield Buffer.alloc(64 * 1024, 'z');
      };
      const endlessUpload = await upload(t, file, endless);
      driver.expectUploadRefused(endlessUpload, 'too_large');
      expect(endlessUpload.sent).toBeLessThan(64 * MIB); // of 256 MiB offered
      expect(await driver.stored(t, { id: file.id, workspaceId: ws.workspaceId })).toEqual([]);
      expectError(await api.complete(file.id), 422, 'size_mismatch');
      // The right upload still works afterwards.
      expect((await upload(t, file, bytes)).status).toBe(200);
      expect((await api.complete(file.id, { md5: md5(bytes) })).body.status).toBe('COMPLETED');
    });

    it('stores a body as bytes, whatever it looks like: no JSON parser on the upload route', async () => {
      const notJson = '{"unterminated": ';
      const file = await completedFile(notJson, { filename: 'broken.json', mimeType: 'application/json' });
      const got = await download(t, (await api.url(file.id)).body.url);
      expect(got.text).toBe(notJson);
      expect(got.headers['content-type']).toMatch(/^application\/json/);
    });

    it('refuses forged download URLs', async () => {
      const file = await completedFile('secret');
      const { url } = (await api.url(file.id)).body;
      driver.expectDownloadRefused(await download(t, tampered(url)));
      const foreign = await completedFile('other', {}, filesClient(t, other.key));
      driver.expectDownloadRefused(await download(t, url.replace(file.id, foreign.id)));
    });

    it('cancels only PENDING files and completes only PENDING files, in every state', async () => {
      const pending = await api.created({ filename: 'p.txt', mimeType: 'text/plain', sizeBytes: 3 });
      expectError(await api.url(pending.id), 409, 'invalid_state');

      const cancelled = await api.cancel(pending.id, {});
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ id: pending.id, status: 'CANCELLED', expiresAt: null, completedAt: null });
      expectError(await api.cancel(pending.id), 409, 'invalid_state');
      expectError(await api.complete(pending.id), 409, 'invalid_state');
      expectError(await api.url(pending.id), 409, 'invalid_state');
      driver.expectLateUpload(await upload(t, pending, 'abc'));
      expect((await api.get(pending.id)).body.status).toBe('CANCELLED');

      const done = await completedFile('abc');
      expectError(await api.cancel(done.id, {}), 409, 'invalid_state');
      expectError(await api.complete(done.id, { md5: md5('abc') }), 409, 'invalid_state');
      driver.expectLateUpload(await upload(t, done, 'xyz'));
      const got = await download(t, (await api.url(done.id)).body.url);
      expect(got.text).toBe('abc');

      // The body of cancel is optional and empty.
      const bare = await api.created({ filename: 'q.txt', mimeType: 'text/plain', sizeBytes: 3 });
      expectError(await api.cancel(bare.id, { reason: 'x' }), 400, 'unknown_field', 'reason');
      expect((await api.cancel(bare.id)).body.status).toBe('CANCELLED');
    });

    it("holds no row through a complete's storage calls: a cancel meanwhile wins, and the complete deletes its snapshot", async () => {
      const file = await api.created({ filename: 'r.txt', mimeType: 'text/plain', sizeBytes: 3 });
      expect((await upload(t, file, 'abc')).status).toBe(200);
      const { gate, held } = holdSnapshots(t);
      try {
        const completing = api.complete(file.id, { md5: md5('abc') });
        await gate.arrived;
        expect((await api.cancel(file.id)).body.status).toBe('CANCELLED');
        gate.open();
        expectError(await completing, 409, 'invalid_state');
      } finally {
        held.mockRestore();
      }
      expect((await api.get(file.id)).body.status).toBe('CANCELLED');
      expect(await driver.stored(t, { id: file.id, workspaceId: ws.workspaceId })).toHaveLength(1); // the upload alone
    });

    it.each([
      ['without', undefined],
      ['with', `hold-${newId('file')}`],
    ])("holds no pooled connection through a complete's storage calls, %s an Idempotency-Key", async (_with, key) => {
      const file = await api.created({ filename: 'h.txt', mimeType: 'text/plain', sizeBytes: 3 });
      expect((await upload(t, file, 'abc')).status).toBe(200);
      const headers: Record<string, string> = key === undefined ? {} : { 'Idempotency-Key': key };
      const storage = t.app.get(FileStorage);
      const inUse: Record<string, number> = {};
      const gate = new Gate();
      const snapshot = storage.snapshot.bind(storage);
      const digest = storage.md5.bind(storage);
      const spies = [
        jest.spyOn(storage, 'snapshot').mockImplementation(async (stored) => {
          inUse.snapshot = connectionsInUse(t);
          return snapshot(stored);
        }),
        jest.spyOn(storage, 'md5').mockImplementation(async (stored) => {
          inUse.md5 = connectionsInUse(t);
          await gate.pass();
          return digest(stored);
        }),
      ];
      let completed: Response;
      try {
        const completing = api.complete(file.id, { md5: md5('abc') }, headers);
        await gate.arrived;
        inUse.waiting = connectionsInUse(t);
        // The key is claimed meanwhile: a duplicate is refused, not run, also by another instance.
        if (key !== undefined) {
          expectError(await api.complete(file.id, { md5: md5('abc') }, headers), 409, 'idempotency_conflict');
          const instance = await startFilesApp(driver);
          try {
            const elsewhere = filesClient(instance, ws.key).complete(file.id, { md5: md5('abc') }, headers);
            expectError(await elsewhere, 409, 'idempotency_conflict');
          } finally {
            await instance.close();
          }
        }
        gate.open();
        completed = await completing;
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
      expect(inUse).toEqual({ snapshot: 0, md5: 0, waiting: 0 });
      expect(completed.status).toBe(200);
      expect(completed.body.status).toBe('COMPLETED');
      if (key !== undefined) {
        const replay = await api.complete(file.id, { md5: md5('abc') }, headers);
        expect({ status: replay.status, replayed: replay.headers['idempotent-replayed'], body: replay.body }).toEqual({
          status: 200,
          replayed: 'true',
          body: completed.body,
        });
        expectError(await api.complete(file.id, {}, headers), 422, 'idempotency_key_reused', 'Idempotency-Key');
      }
    });

    it('commits one of concurrent completes; the others answer 409 invalid_state and leave no snapshot', async () => {
      const file = await api.created({ filename: 'c.txt', mimeType: 'text/plain', sizeBytes: 3 });
      expect((await upload(t, file, 'abc')).status).toBe(200);
      const answers = await concurrently(6, () => api.complete(file.id, { md5: md5('abc') }));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      for (const answer of answers.filter((response) => response.status === 409))
        expectError(answer, 409, 'invalid_state');
      expect(await driver.stored(t, { id: file.id, workspaceId: ws.workspaceId })).toHaveLength(2); // the upload and the content
      expect((await download(t, (await api.url(file.id)).body.url)).text).toBe('abc');
    });

    it('validates the create body with the codes of docs/api.md §2', async () => {
      const valid = { filename: 'f.txt', mimeType: 'text/plain', sizeBytes: 1 };
      const refusals: [Record<string, unknown>, number, string, string][] = [
        [{ mimeType: 'text/plain', sizeBytes: 1 }, 422, 'parameter_missing', 'filename'],
        [{ ...valid, mimeType: undefined }, 422, 'parameter_missing', 'mimeType'],
        [{ ...valid, sizeBytes: null }, 422, 'parameter_missing', 'sizeBytes'],
        [{ ...valid, filename: '' }, 422, 'invalid_value', 'filename'],
        [{ ...valid, filename: 'x'.repeat(256) }, 422, 'invalid_value', 'filename'],
        // Control characters are C0, DEL and C1 alike (U+009B alone is a terminal escape).
        ...['a\nb.txt', '\tb.txt', 'a\u007f', '\u0080.txt', 'a\u009b[31mb.txt', 'a\u009f'].map(
          (filename): [Record<string, unknown>, number, string, string] => [
            { ...valid, filename },
            422,
            'invalid_value',
            'filename',
          ],
        ),
        [{ ...valid, filename: 5 }, 400, 'invalid_type', 'filename'],
        [{ ...valid, mimeType: 'text' }, 422, 'invalid_value', 'mimeType'],
        [{ ...valid, mimeType: 'text/plain; charset=utf-8' }, 422, 'invalid_value', 'mimeType'],
        [{ ...valid, mimeType: 'text/pl ain' }, 422, 'invalid_value', 'mimeType'],
        [{ ...valid, sizeBytes: 0 }, 422, 'invalid_value', 'sizeBytes'],
        [{ ...valid, sizeBytes: 536870913 }, 422, 'invalid_value', 'sizeBytes'],
        [{ ...valid, sizeBytes: 1.5 }, 400, 'invalid_type', 'sizeBytes'],
        [{ ...valid, sizeBytes: '5' }, 400, 'invalid_type', 'sizeBytes'],
        [{ ...valid, purpose: 'avatar' }, 400, 'invalid_type', 'purpose'],
        [{ ...valid, status: 'COMPLETED' }, 400, 'unknown_field', 'status'],
      ];
      for (const [body, status, code, param] of refusals) expectError(await api.create(body), status, code, param);
      for (const filename of ['x'.repeat(255), 'a\u00a0b.txt', '\u00a0'])
        expect((await api.create({ ...valid, filename })).status).toBe(200);
    });

    it('enforces each purpose: its MIME types and size, the admin rule, and neither stores nor returns it', async () => {
      const cases: [string | undefined, string[], string[], number][] = [
        [
          'meeting_transcript',
          ['text/plain', 'text/vtt', 'text/markdown', 'application/json', 'application/x-subrip', 'TEXT/VTT'],
          ['application/pdf', 'text/html', 'image/png'],
          50 * MIB,
        ],
        [
          'knowledge_user',
          [
            'text/plain',
            'text/csv',
            'text/html',
            'application/pdf',
            'application/json',
            'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
            'application/msword',
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
            'application/vnd.ms-powerpoint',
          ],
          ['image/png', 'application/zip', 'video/mp4'],
          100 * MIB,
        ],
        [
          'knowledge_workspace',
          ['text/markdown', 'application/pdf', 'application/vnd.oasis.opendocument.text'],
          ['application/octet-stream', 'audio/mpeg'],
          100 * MIB,
        ],
        [undefined, ['image/png', 'application/x-anything'], [], 512 * MIB],
      ];
      for (const [purpose, allowed, refused, maxBytes] of cases) {
        for (const mimeType of allowed) {
          const response = await api.create({
            filename: 'k',
            mimeType,
            sizeBytes: maxBytes,
            ...(purpose && { purpose }),
          });
          expect({ purpose, mimeType, status: response.status }).toEqual({ purpose, mimeType, status: 200 });
          expect(response.body).not.toHaveProperty('purpose');
          expect(response.body.mimeType).toBe(mimeType);
        }
        for (const mimeType of refused) {
          expectError(
            await api.create({ filename: 'k', mimeType, sizeBytes: 1, purpose }),
            422,
            'file_constraint',
            'mimeType',
          );
        }
        const tooBig = await api.create({
          filename: 'k',
          mimeType: allowed[0],
          sizeBytes: maxBytes + 1,
          ...(purpose && { purpose }),
        });
        if (purpose) expectError(tooBig, 422, 'file_constraint', 'sizeBytes');
        else expectError(tooBig, 422, 'invalid_value', 'sizeBytes');
      }
      const member = await createMember(t.http, ws.workspaceId, { role: 'member' });
      const memberKey = await createKey(t.http, ws.workspaceId, member.id, ['files:create', 'files:read']);
      const asMember = filesClient(t, memberKey.key);
      expectError(
        await asMember.create({
          filename: 'k',
          mimeType: 'application/pdf',
          sizeBytes: 1,
          purpose: 'knowledge_workspace',
        }),
        403,
        'not_permitted',
        'purpose',
      );
      expect(
        (await asMember.create({ filename: 'k', mimeType: 'application/pdf', sizeBytes: 1, purpose: 'knowledge_user' }))
          .status,
      ).toBe(200);
      const columns: { column_name: string }[] = await t.dataSource.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'files'`,
      );
      expect(columns.map((column) => column.column_name)).not.toContain('purpose');
    });

    it("lists the workspace's files newest first, paged, with only limit, offset and cursor", async () => {
      const fresh = await createWorkspace(t.http);
      const client = filesClient(t, fresh.key);
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1)
        ids.push((await client.created({ filename: `f${i}`, mimeType: 'text/plain', sizeBytes: 1 })).id);
      await client.cancel(ids[0]);
      const first = await client.list('?limit=2');
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        object: 'list',
        totalCount: 3,
        data: [expect.objectContaining({ id: ids[2] }), expect.objectContaining({ id: ids[1] })],
        nextCursor: expect.any(String),
      });
      expect(first.body.data[0]).not.toHaveProperty('uploadUrl');
      const rest = await client.list('?limit=2&offset=2');
      expect(rest.body.data.map((file: { id: string; status: string }) => [file.id, file.status])).toEqual([
        [ids[0], 'CANCELLED'],
      ]);
      expect(rest.body.totalCount).toBe(3);
      expect(rest.body.nextCursor).toBeNull();
      const next = await client.list(`?cursor=${first.body.nextCursor}`);
      expect(next.body.data.map((file: { id: string }) => file.id)).toEqual([ids[0]]);
      expectError(await client.list('?status=PENDING'), 400, 'invalid_parameter', 'status');
      expectError(await client.list('?limit=26'), 400, 'invalid_parameter', 'limit');
    });

    it('orders files by exactly the createdAt it shows, then by id, also within one millisecond', async () => {
      const fresh = await createWorkspace(t.http);
      const client = filesClient(t, fresh.key);
      const created = await Promise.all(
        Array.from({ length: 12 }, (_unused, index) =>
          client.created({ filename: `same-${index}`, mimeType: 'text/plain', sizeBytes: 1 }),
        ),
      );
      // Stamped at the precision shown: a finer stamp would order two files of one shown millisecond by it.
      const [{ finer }]: { finer: number }[] = await t.dataSource.query(
        `SELECT count(*)::int AS finer FROM files WHERE workspace_id = $1 AND created_at <> date_trunc('milliseconds', created_at)`,
        [fresh.workspaceId],
      );
      expect(finer).toBe(0);
      const sameMillisecond = '2020-01-01T00:00:00.123Z';
      const tied = [created[7].id, created[2].id, created[9].id, created[4].id];
      await t.dataSource.query(`UPDATE files SET created_at = $2 WHERE id = ANY($1)`, [tied, sameMillisecond]);
      const listed = (await client.list('?limit=25')).body.data as { id: string; createdAt: string }[];
      expect(listed).toHaveLength(12);
      const newestFirst = [...listed].sort(
        (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id),
      );
      expect(listed.map((file) => file.id)).toEqual(newestFirst.map((file) => file.id));
      expect(listed.slice(-4)).toEqual(
        [...tied]
          .sort()
          .reverse()
          .map((id) => expect.objectContaining({ id, createdAt: sameMillisecond })),
      );
      // The table refuses a finer stamp, so no writer can bring the mismatch back.
      await expect(
        t.dataSource.query(`UPDATE files SET created_at = created_at + interval '1 microsecond' WHERE id = $1`, [
          created[0].id,
        ]),
      ).rejects.toThrow(/files_created_at_milliseconds/);
    });

    it("keeps workspaces apart: another workspace's file, or an id of the wrong shape, is a 404 everywhere", async () => {
      const foreign = await completedFile('foreign', {}, filesClient(t, other.key));
      const wrongShapes = [
        'fil_123',
        'note_01JD6Y3Z8Q0N5V4W7X2C9B1A3E',
        newId('note'),
        'fil_01jd6y3z8q0n5v4w7x2c9b1a3e',
      ];
      for (const id of [foreign.id, newId('file'), ...wrongShapes]) {
        expectError(await api.get(id), 404, 'not_found');
        expectError(await api.complete(id), 404, 'not_found');
        expectError(await api.cancel(id), 404, 'not_found');
        expectError(await api.url(id), 404, 'not_found');
      }
      const listed = await api.list();
      expect(listed.body.data.map((file: { id: string }) => file.id)).not.toContain(foreign.id);
    });

    it('requires files:create to create, complete and cancel, and files:read to read', async () => {
      const member = await createMember(t.http, ws.workspaceId);
      const reader = filesClient(t, (await createKey(t.http, ws.workspaceId, member.id, ['files:read'])).key);
      const writer = filesClient(t, (await createKey(t.http, ws.workspaceId, member.id, ['files:create'])).key);
      const file = await writer.created({ filename: 's.txt', mimeType: 'text/plain', sizeBytes: 2 });
      expectError(
        await reader.create({ filename: 's.txt', mimeType: 'text/plain', sizeBytes: 2 }),
        403,
        'insufficient_scope',
      );
      expectError(await reader.complete(file.id), 403, 'insufficient_scope');
      expectError(await reader.cancel(file.id), 403, 'insufficient_scope');
      expectError(await writer.get(file.id), 403, 'insufficient_scope');
      expectError(await writer.list(), 403, 'insufficient_scope');
      expectError(await writer.url(file.id), 403, 'insufficient_scope');
      expect((await reader.get(file.id)).status).toBe(200);
      expect((await reader.list()).status).toBe(200);
      expect((await writer.cancel(file.id)).status).toBe(200);
    });

    it('counts each route in its rate-limit bucket; the byte routes are in none and need no key', async () => {
      const created = await api.create({ filename: 'r.txt', mimeType: 'text/plain', sizeBytes: 2 });
      expectRateLimitHeaders(created, 'write', 10000);
      expectRateLimitHeaders(await api.get(created.body.id), 'read', 10000);
      expectRateLimitHeaders(await api.list(), 'search', 10000);
      const put = await upload(t, created.body, 'ok');
      expect(put.status).toBe(200);
      expect(put.headers['x-ratelimit-limit']).toBeUndefined();
      expectRateLimitHeaders(await api.complete(created.body.id), 'write', 10000);
      expectRateLimitHeaders(await api.url(created.body.id), 'read', 10000);
      const cancelled = await api.created({ filename: 'r.txt', mimeType: 'text/plain', sizeBytes: 2 });
      expectRateLimitHeaders(await api.cancel(cancelled.id), 'write', 10000);
    });

    it('honours Idempotency-Key on create and complete', async () => {
      const key = `files-${newId('file')}`;
      const body = { filename: 'i.txt', mimeType: 'text/plain', sizeBytes: 2 };
      const first = await api.create(body, { 'Idempotency-Key': key });
      const again = await api.create(body, { 'Idempotency-Key': key });
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await upload(t, first.body, 'ok')).status).toBe(200);
      const done = await api.complete(first.body.id, {}, { 'Idempotency-Key': `${key}-complete` });
      const replay = await api.complete(first.body.id, {}, { 'Idempotency-Key': `${key}-complete` });
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(done.body);
      expectError(await api.complete(first.body.id, {}), 409, 'invalid_state');
    });

    describe('transcripts of meetings seen at METADATA access (docs/api.md §9)', () => {
      async function meeting(fields: Record<string, unknown>, links: [string, string][]): Promise<string> {
        const id = newId('meeting');
        await t.dataSource.query(
          `INSERT INTO records (id, workspace_id, object_type, fields, created_at) VALUES ($1, $2, 'meeting', $3, now())`,
          [id, ws.workspaceId, JSON.stringify(fields)],
        );
        for (const [link, target] of links) {
          await t.dataSource.query(
            `INSERT INTO record_links (workspace_id, source_id, link, target_id) VALUES ($1, $2, $3, $4)`,
            [ws.workspaceId, id, link, target],
          );
        }
        return id;
      }

      it('hides the transcript from every /v1/files route unless the caller has FULL access', async () => {
        const attendee = await createMember(t.http, ws.workspaceId);
        const asAttendee = filesClient(
          t,
          (await createKey(t.http, ws.workspaceId, attendee.id, ['files:read', 'files:create'])).key,
        );
        const hidden = await completedFile('hidden transcript');
        const hiddenPending = await api.created({ filename: 'pending.vtt', mimeType: 'text/vtt', sizeBytes: 3 });
        const unattended = await completedFile('no organizer, no attendees, no creator');
        const open = await completedFile('open transcript');
        const organised = await completedFile('organised');
        const created = await completedFile('created');
        const attended = await completedFile('attended');
        const base = { $title: 'Board', $organizerEmail: 'someone@elsewhere.test', $attendeeEmails: [attendee.email] };
        await meeting({ ...base, $privacySetting: 'METADATA' }, [['meeting:$transcript', hidden.id]]);
        await meeting({ ...base, $privacySetting: 'METADATA' }, [['meeting:$transcript', hiddenPending.id]]);
        await meeting({ $title: 'Board', $privacySetting: 'METADATA' }, [['meeting:$transcript', unattended.id]]);
        await meeting({ ...base }, [['meeting:$transcript', open.id]]); // FULL by default
        await meeting({ ...base, $privacySetting: 'METADATA', $organizerEmail: ws.memberEmail.toLowerCase() }, [
          ['meeting:$transcript', organised.id],
        ]);
        await meeting({ ...base, $privacySetting: 'METADATA' }, [
          ['meeting:$transcript', created.id],
          ['meeting:$createdBy', ws.memberId],
        ]);
        await meeting(
          { ...base, $privacySetting: 'METADATA', $attendeeEmails: [attendee.email, ws.memberEmail.toLowerCase()] },
          [['meeting:$transcript', attended.id]],
        );

        for (const id of [hidden.id, hiddenPending.id, unattended.id]) {
          expectError(await api.get(id), 404, 'not_found');
          expectError(await api.url(id), 404, 'not_found');
          expectError(await api.complete(id), 404, 'not_found');
          expectError(await api.cancel(id), 404, 'not_found');
        }
        for (const id of [open.id, organised.id, created.id, attended.id]) {
          expect({ id, status: (await api.url(id)).status }).toEqual({ id, status: 200 });
        }
        const everything: { id: string }[] = [];
        const total = (await api.list()).body.totalCount;
        for (let offset = 0; offset < total; offset += 25)
          everything.push(...(await api.list(`?offset=${offset}`)).body.data);
        const listed = everything.map((file) => file.id);
        expect(listed).toHaveLength(total);
        expect(listed).not.toContain(hidden.id);
        expect(listed).not.toContain(hiddenPending.id);
        expect(listed).not.toContain(unattended.id);
        expect(listed).toEqual(expect.arrayContaining([open.id, organised.id, created.id, attended.id]));

        // The attendee has FULL access to the same meeting.
        expect((await asAttendee.get(hidden.id)).status).toBe(200);
        expect((await asAttendee.url(hidden.id)).status).toBe(200);
        expect((await asAttendee.cancel(hiddenPending.id)).body.status).toBe('CANCELLED');
        expectError(await asAttendee.get(unattended.id), 404, 'not_found');
        expect((await asAttendee.list('?limit=25')).body.totalCount).toBe(total + 2);
      });
    });

    describe('expiry and the sweep', () => {
      let short: FilesApp;
      let client: ReturnType<typeof filesClient>;
      let fresh: TestWorkspace;
      // Long enough for the set-up below to finish before the deadline on a busy machine with a
      // slow store (3 s was not, on S3 under load); the test sleeps until each deadline passes.
      const TTL = 10;

      beforeAll(async () => {
        // A second instance on the same storage (DATA_DIR for the local driver), with short lifetimes.
        short = await startFilesApp(driver, {
          UPLOAD_TTL_SECONDS: String(TTL),
          DOWNLOAD_URL_TTL_SECONDS: String(TTL),
          DATA_DIR: t.config.dataDir,
        });
        fresh = await createWorkspace(short.http);
        client = filesClient(short, fresh.key);
      });
      afterAll(() => short?.close());

      it('reads a PENDING file past its deadline as EXPIRED, refuses its upload URL, and sweeps what dead uploads left', async () => {
        const neverUploaded = await client.created({ filename: 'e1.txt', mimeType: 'text/plain', sizeBytes: 3 });
        const uploaded = await client.created({ filename: 'e2.txt', mimeType: 'text/plain', sizeBytes: 3 });
        const cancelled = await client.created({ filename: 'e3.txt', mimeType: 'text/plain', sizeBytes: 3 });
        const completed = await client.created({ filename: 'e4.txt', mimeType: 'text/plain', sizeBytes: 3 });
        expect(Date.parse(neverUploaded.expiresAt as string) - Date.now()).toBeLessThanOrEqual(TTL * 1000);
        for (const file of [uploaded, cancelled, completed])
          expect((await upload(short, file, 'abc')).status).toBe(200);
        expect((await client.cancel(cancelled.id)).status).toBe(200);
        expect((await client.complete(completed.id, { md5: md5('abc') })).status).toBe(200);
        const { url: downloadUrl, expiresAt: downloadExpiresAt } = (await client.url(completed.id)).body;
        // Nothing is swept before the deadline: the upload URLs still work until then.
        const owned = [neverUploaded, uploaded, cancelled, completed].map((file) => file.id);
        await short.app.get(FileSweeper).sweep();
        expect(Date.now()).toBeLessThan(Date.parse(neverUploaded.expiresAt as string));
        expect(await sweptIds(short, owned)).toEqual([]);
        expect(await driver.stored(short, { id: uploaded.id, workspaceId: fresh.workspaceId })).toHaveLength(1);

        await sleep(Date.parse(uploaded.expiresAt as string) - Date.now() + 1200);
        for (const file of [neverUploaded, uploaded]) {
          const read = await client.get(file.id);
          expect(read.body).toMatchObject({ status: 'EXPIRED', expiresAt: null, completedAt: null });
          expectError(await client.complete(file.id, { md5: md5('abc') }), 409, 'invalid_state');
          expectError(await client.cancel(file.id), 409, 'invalid_state');
          expectError(await client.url(file.id), 409, 'invalid_state');
          driver.expectUploadRefused(await upload(short, file, 'abc'), 'expired');
        }
        const listed = (await client.list()).body.data.filter((file: { id: string }) => owned.includes(file.id));
        expect(listed.map((file: { status: string }) => file.status)).toEqual([
          'COMPLETED',
          'CANCELLED',
          'EXPIRED',
          'EXPIRED',
        ]);
        expect((await client.get(completed.id)).body.status).toBe('COMPLETED');
        await sleep(Math.max(0, Date.parse(downloadExpiresAt) - Date.now() + 1200));
        driver.expectDownloadRefused(await download(short, downloadUrl));

        // Two instances sweeping at once: each file is swept once, by one of them.
        const storages = [short, t].map((app) => app.app.get(FileStorage));
        const deletions = storages.map((storage) => jest.spyOn(storage, 'deleteUnused'));
        try {
          await Promise.all([short, t].map((app) => app.app.get(FileSweeper).sweep()));
          const deleted = deletions
            .flatMap((spy) => spy.mock.calls.map(([file]) => file.id))
            .filter((id) => owned.includes(id));
          expect(deleted.sort()).toEqual([...owned].sort());
        } finally {
          deletions.forEach((spy) => spy.mockRestore());
        }
        expect((await sweptIds(short, owned)).sort()).toEqual([...owned].sort());
        for (const file of [uploaded, cancelled]) {
          expect(await driver.stored(short, { id: file.id, workspaceId: fresh.workspaceId })).toEqual([]);
        }
        // A completed file keeps its committed bytes, and only them; reads are unchanged by the sweep.
        expect(await driver.stored(short, { id: completed.id, workspaceId: fresh.workspaceId })).toHaveLength(1);
        expect((await download(short, (await client.url(completed.id)).body.url)).text).toBe('abc');
        expect((await client.get(uploaded.id)).body.status).toBe('EXPIRED');
      });

      it('ends consistent when a complete dies after its snapshot, or outlives the deadline', async () => {
        const died = await client.created({ filename: 'd.txt', mimeType: 'text/plain', sizeBytes: 3 });
        const late = await client.created({ filename: 'l.txt', mimeType: 'text/plain', sizeBytes: 3 });
        for (const file of [died, late]) expect((await upload(short, file, 'abc')).status).toBe(200);
        const storage = short.app.get(FileStorage);
        const where = (file: { id: string }) => ({ id: file.id, workspaceId: fresh.workspaceId });

        // The process dies after the snapshot: the state never moves and nothing is cleaned up.
        const dies = jest
          .spyOn(short.app.get(FilesRepository), 'markCompleted')
          .mockRejectedValueOnce(new Error('died'));
        const noCleanup = jest.spyOn(storage, 'deleteSnapshot').mockResolvedValueOnce(undefined);
        try {
          expect(
            (await short.http.post(`/v1/files/${died.id}/complete`).set(v1Headers(fresh.key)).send({})).status,
          ).toBe(500);
        } finally {
          dies.mockRestore();
          noCleanup.mockRestore();
        }
        expect(await driver.stored(short, where(died))).toHaveLength(2);
        expect((await client.get(died.id)).body.status).toBe('PENDING');

        // A complete whose storage calls end after the deadline commits nothing: the sweep may have run.
        const { gate, held: slow } = holdSnapshots(short);
        try {
          const completing = client.complete(late.id, { md5: md5('abc') });
          await gate.arrived;
          await sleep(Date.parse(late.expiresAt as string) - Date.now() + 1200);
          gate.open();
          expectError(await completing, 409, 'invalid_state');
        } finally {
          slow.mockRestore();
        }
        expect((await client.get(late.id)).body.status).toBe('EXPIRED');
        expect(await driver.stored(short, where(late))).toHaveLength(1); // its snapshot deleted, the upload left to the sweep

        await short.app.get(FileSweeper).sweep();
        expect(await driver.stored(short, where(died))).toEqual([]);
        expect(await driver.stored(short, where(late))).toEqual([]);
      });
    });
  });
}

async function sweptIds(t: FilesApp, ids: string[]): Promise<string[]> {
  const rows: { id: string }[] = await t.dataSource.query(
    `SELECT id FROM files WHERE id = ANY($1) AND swept_at IS NOT NULL`,
    [ids],
  );
  return rows.map((row) => row.id);
}

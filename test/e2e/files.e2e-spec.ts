import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { newId } from '../../src/common/ids';
import { FilesCreatedAtMilliseconds1763794800000 } from '../../src/database/migrations/1763794800000-files-created-at-milliseconds';
import { FileCommits1763816400000 } from '../../src/database/migrations/1763816400000-file-commits';
import { FileSweeper } from '../../src/modules/files/file-sweeper';
import { FileStorage } from '../../src/modules/files/storage/file-storage';
import { LocalFileStorage } from '../../src/modules/files/storage/local-file-storage';
import { ByteResponse, md5, md5Of, patternChunks, sendBytes } from '../support/byte-http';
import { Gate } from '../support/concurrency';
import { ScratchDatabase } from '../support/scratch-database';
import { expectError } from '../support/errors';
import { createWorkspace, TestWorkspace } from '../support/factories';
import {
  connectionsInUse,
  describeFilesContract,
  download,
  FilesApp,
  filesClient,
  FilesDriver,
  startFilesApp,
  upload,
  UploadRefusal,
} from '../support/files-contract';

/** Our error body, from the service's own signed routes. */
function expectOurError(response: ByteResponse, status: number, code: string): void {
  expectError(response as unknown as Response, status, code);
}

const LOCAL_REFUSALS: Record<UploadRefusal, [number, string]> = {
  signature: [403, 'invalid_signature'],
  expired: [403, 'invalid_signature'],
  content_type: [415, 'unsupported_media_type'],
  too_large: [413, 'payload_too_large'],
};

const localDriver: FilesDriver = {
  name: 'local',
  env: () => ({}),
  async stored(t, file) {
    const directory = path.join(t.config.dataDir, 'files', file.workspaceId);
    const names = existsSync(directory) ? readdirSync(directory) : [];
    return names.filter((name) => name === file.id || name.startsWith(`${file.id}.`)).sort();
  },
  expectUploadRefused(response, reason) {
    expectOurError(response, ...LOCAL_REFUSALS[reason]);
  },
  expectDownloadRefused(response) {
    expectOurError(response, 403, 'invalid_signature');
  },
  expectShortUpload(response) {
    expect(response.status).toBe(200);
  },
  expectLateUpload(response) {
    expectOurError(response, 409, 'invalid_state');
  },
};

describeFilesContract(localDriver);

describe('files on the local storage driver: what only it has', () => {
  let t: FilesApp;
  let ws: TestWorkspace;
  let api: ReturnType<typeof filesClient>;

  beforeAll(async () => {
    t = await startFilesApp(localDriver);
    ws = await createWorkspace(t.http);
    api = filesClient(t, ws.key);
  });
  afterAll(() => t?.close());

  /** Samples this process's RSS (the service runs in it) while `work` runs; returns the peak growth. */
  async function peakRssGrowth(work: () => Promise<unknown>): Promise<{ growth: number; result: unknown }> {
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
    try {
      const result = await work();
      peak = Math.max(peak, process.memoryUsage.rss());
      return { growth: peak - baseline, result };
    } finally {
      clearInterval(sampler);
    }
  }

  it('streams a 20 MB upload with flat memory, and the download too', async () => {
    const size = 20 * 1024 * 1024;
    const chunks = patternChunks(size); // produced on demand from one reused 64 KiB block
    const digest = await md5Of(chunks);
    const uploadOne = async () => {
      const file = await api.created({ filename: 'big.bin', mimeType: 'application/octet-stream', sizeBytes: size });
      const put = await upload(t, file, chunks);
      expect(put.status).toBe(200);
      expect(put.headers.etag).toBe(`"${digest}"`);
      return file;
    };
    // Two uploads first: the allocator's first growth (socket, stream and hash buffers, whose
    // garbage the next GC frees) is not what is measured; the process then stays at that level.
    await uploadOne();
    await uploadOne();
    // Measured again once if over: a body buffered whole grows the process by its 20 MB every
    // time, while a collection that other work in the process left due can land in any one
    // measure (seen once, 34 MB, on Node 24 on a loaded machine).
    const first = await peakRssGrowth(uploadOne);
    const measured = first.growth < 15 * 1024 * 1024 ? first : await peakRssGrowth(uploadOne);
    const file = measured.result as { id: string };
    process.stdout.write(`20 MB upload: peak RSS growth ${(measured.growth / 1024 / 1024).toFixed(1)} MB\n`);
    expect(measured.growth).toBeLessThan(15 * 1024 * 1024);
    expect((await api.complete(file.id, { md5: digest })).body.status).toBe('COMPLETED');
    expect(existsSync(path.join(t.config.dataDir, 'files', ws.workspaceId, file.id))).toBe(true);
    // The client here keeps the downloaded bytes, so only they are checked.
    const got = await sendBytes((await api.url(file.id)).body.url);
    expect(got.raw.length).toBe(size);
    expect(md5(got.raw)).toBe(digest);
  }, 60_000);

  it('holds no pooled connection while it receives and places an upload', async () => {
    const storage = t.app.get<LocalFileStorage>(FileStorage);
    const inUse: Record<string, number> = {};
    const receive = storage.receive.bind(storage);
    const place = storage.place.bind(storage);
    const spies = [
      jest.spyOn(storage, 'receive').mockImplementation(async (...args) => {
        inUse.receive = connectionsInUse(t);
        return receive(...args);
      }),
      jest.spyOn(storage, 'place').mockImplementation(async (...args) => {
        inUse.place = connectionsInUse(t);
        return place(...args);
      }),
    ];
    try {
      const file = await api.created({ filename: 'p.txt', mimeType: 'text/plain', sizeBytes: 3 });
      expect((await upload(t, file, 'abc')).status).toBe(200);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(inUse).toEqual({ receive: 0, place: 0 });
  });

  it('takes back an upload placed after the file was cancelled: 409, and no bytes left', async () => {
    const storage = t.app.get<LocalFileStorage>(FileStorage);
    const file = await api.created({ filename: 'l.txt', mimeType: 'text/plain', sizeBytes: 3 });
    const place = storage.place.bind(storage);
    const cancelFirst = jest.spyOn(storage, 'place').mockImplementation(async (...args) => {
      expect((await api.cancel(file.id)).body.status).toBe('CANCELLED');
      return place(...args);
    });
    try {
      expectOurError(await upload(t, file, 'abc'), 409, 'invalid_state');
    } finally {
      cancelFirst.mockRestore();
    }
    expect(await localDriver.stored(t, { id: file.id, workspaceId: ws.workspaceId })).toEqual([]);
  });

  it('completes once under one Idempotency-Key even when the claim on it is lost with its connection', async () => {
    const file = await api.created({ filename: 'k.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect((await upload(t, file, 'abc')).status).toBe(200);
    const headers = { 'Idempotency-Key': `lost-${file.id}` };
    const storage = t.app.get(FileStorage);
    const digest = storage.md5.bind(storage);
    const gate = new Gate();
    const held = jest.spyOn(storage, 'md5').mockImplementation(async (key) => {
      await gate.pass();
      return digest(key);
    });
    const instance = await startFilesApp(localDriver, { DATA_DIR: t.config.dataDir });
    try {
      const first = api.complete(file.id, { md5: md5('abc') }, headers);
      await gate.arrived;
      // The connection holding the claim dies: another instance can claim the key and complete. Its lock
      // goes when its backend has exited, which pg_terminate_backend waits for only when given a timeout.
      const [{ terminated }] = await t.dataSource.query(
        `SELECT (count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)))::int AS terminated FROM pg_locks
          WHERE locktype = 'advisory' AND objsubid = 1 AND granted
            AND classid::bigint = (hashtextextended($1, 0) >> 32) & 4294967295
            AND objid::bigint = hashtextextended($1, 0) & 4294967295`,
        [`idempotency-claim:${ws.apiKeyId}:${headers['Idempotency-Key']}`],
      );
      expect(terminated).toBe(1);
      const second = await filesClient(instance, ws.key).complete(file.id, { md5: md5('abc') }, headers);
      expect(second.status).toBe(200);
      gate.open();
      // The first finds the response stored when it comes to write, and answers it.
      const answered = await first;
      expect({
        status: answered.status,
        replayed: answered.headers['idempotent-replayed'],
        body: answered.body,
      }).toEqual({
        status: 200,
        replayed: 'true',
        body: second.body,
      });
    } finally {
      // A failed expectation above must not leave the first request waiting at the gate, nor the app's close behind it.
      gate.open();
      held.mockRestore();
      await instance.close();
    }
    const stored = await localDriver.stored(t, { id: file.id, workspaceId: ws.workspaceId });
    // The upload, the content, and the first's unused snapshot, which the sweep deletes.
    expect(stored).toHaveLength(3);
    expect((await download(t, (await api.url(file.id)).body.url)).text).toBe('abc');
  });

  it('ignores a query parameter added beside the signed ones: it changes nothing they authorise', async () => {
    const file = await api.created({ filename: 'q.txt', mimeType: 'text/plain', sizeBytes: 2 });
    const sent = await sendBytes(`${file.uploadUrl}&cache=1`, {
      method: 'PUT',
      headers: file.uploadHeaders,
      body: 'ok',
    });
    expect(sent.status).toBe(200);
    await api.complete(file.id);
    expect((await download(t, `${(await api.url(file.id)).body.url}&cache=1`)).text).toBe('ok');
  });

  it('serves downloads as attachments that browsers do not sniff, and answers HEAD without a body', async () => {
    const file = await api.created({ filename: 'page.html', mimeType: 'text/html', sizeBytes: 15 });
    expect((await upload(t, file, '<script></script>'.slice(0, 15))).status).toBe(200);
    await api.complete(file.id);
    const { url } = (await api.url(file.id)).body;
    const got = await download(t, url);
    expect(got.headers['content-type']).toBe('text/html');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.headers['content-length']).toBe('15');
    // A name the quoted form holds exactly needs no RFC 8187 form beside it.
    expect(got.headers['content-disposition']).toBe(`attachment; filename="page.html"`);
    const head = await sendBytes(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.raw.length).toBe(0);
    expect(head.headers['content-length']).toBe('15');
  });

  it("sweeps by itself as the worker's periodic job, scheduled every FILE_SWEEP_INTERVAL_SECONDS", async () => {
    // A worker on a database of its own: on the shared one it would make the other suites' deliveries.
    const database = new ScratchDatabase('records_files_sweep');
    await database.create();
    // A 1 s upload URL can expire between create and PUT on a busy machine (403): 3 s leaves room.
    const sweeping = await startFilesApp(localDriver, {
      DATABASE_URL: database.url,
      ROLES: 'api,worker',
      FILE_SWEEP_INTERVAL_SECONDS: '120',
      UPLOAD_TTL_SECONDS: '3',
    });
    try {
      const own = await createWorkspace(sweeping.http);
      const client = filesClient(sweeping, own.key);
      const file = await client.created({ filename: 'gone.txt', mimeType: 'text/plain', sizeBytes: 4 });
      expect((await upload(sweeping, file, 'gone')).status).toBe(200);
      const stored = path.join(sweeping.config.dataDir, 'files', own.workspaceId, file.id);
      expect(existsSync(stored)).toBe(true);
      // The schedule is graphile-worker's, to the minute: its job is enqueued here as its minute would.
      expect(
        await sweeping.dataSource.query(
          `SELECT identifier FROM graphile_worker._private_known_crontabs WHERE identifier = 'file_sweep'`,
        ),
      ).toEqual([{ identifier: 'file_sweep' }]);
      await sleep(3000);
      await sweeping.dataSource.query(`SELECT graphile_worker.add_job('file_sweep')`);
      for (let waited = 0; waited < 10_000 && existsSync(stored); waited += 100) await sleep(100);
      expect(existsSync(stored)).toBe(false);
      expect((await client.get(file.id)).body.status).toBe('EXPIRED');
    } finally {
      await sweeping.close();
      await database.drop();
    }
  });

  it('refuses unsigned URLs with 400 naming what is missing, forged ones and ids of the wrong shape with 403, leaving no partial file behind', async () => {
    const file = await api.created({ filename: 'u.txt', mimeType: 'text/plain', sizeBytes: 2 });
    const unsigned = file.uploadUrl.split('?')[0];
    const expires = new URL(file.uploadUrl).searchParams.get('expires');
    const unsignedUpload = await sendBytes(unsigned, { method: 'PUT', headers: file.uploadHeaders, body: 'ok' });
    expectOurError(unsignedUpload, 400, 'invalid_parameter');
    expect(unsignedUpload.body.error).toMatchObject({ param: 'expires', message: 'expires is required' });
    const withoutSignature = await sendBytes(`${unsigned}?expires=${expires}`, {
      method: 'PUT',
      headers: file.uploadHeaders,
      body: 'ok',
    });
    expectOurError(withoutSignature, 400, 'invalid_parameter');
    expect(withoutSignature.body.error).toMatchObject({ param: 'signature', message: 'signature is required' });
    const base = `${unsigned}?expires=${expires}&signature=forged`;
    expectOurError(
      await sendBytes(base, { method: 'PUT', headers: file.uploadHeaders, body: 'ok' }),
      403,
      'invalid_signature',
    );
    const wrongShape = file.uploadUrl.replace(file.id, 'fil_nope');
    expectOurError(
      await sendBytes(wrongShape, { method: 'PUT', headers: file.uploadHeaders, body: 'ok' }),
      403,
      'invalid_signature',
    );
    expectOurError(await sendBytes(base.replace('/uploads/', '/downloads/')), 403, 'invalid_signature');
    // Without Content-Type, or with one that does not parse: the route's own refusal, naming the signed type.
    expectOurError(await sendBytes(file.uploadUrl, { method: 'PUT', body: 'ok' }), 415, 'unsupported_media_type');
    const unparseable = await sendBytes(file.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'garbage;;' },
      body: 'ok',
    });
    expectOurError(unparseable, 415, 'unsupported_media_type');
    expect(unparseable.body.error).toMatchObject({
      param: 'Content-Type',
      message: expect.stringContaining('text/plain'),
    });
    // A forged URL is refused for its signature first, whatever the Content-Type.
    expectOurError(
      await sendBytes(base, { method: 'PUT', headers: { 'content-type': 'garbage;;' }, body: 'ok' }),
      403,
      'invalid_signature',
    );
    const partials = path.join(t.config.dataDir, 'files', '.partial');
    expect(existsSync(partials) ? readdirSync(partials) : []).toEqual([]);
    // GET on the upload route is a 405 naming PUT.
    const wrongMethod = await sendBytes(file.uploadUrl);
    expectOurError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.allow).toBe('PUT');
  });
});

describe('the files table', () => {
  let t: FilesApp;
  let ws: TestWorkspace;

  beforeAll(async () => {
    t = await startFilesApp(localDriver);
    ws = await createWorkspace(t.http);
  });
  afterAll(() => t?.close());

  /**
   * `work` on the database as it was before `migration`, in a transaction rolled back afterwards:
   * rows written as the old schema held them, then the migration applied to them.
   */
  async function withMigrationUndone<M extends MigrationInterface>(
    migration: M,
    work: (runner: QueryRunner, migration: M) => Promise<void>,
  ): Promise<void> {
    const runner = t.app.get(DataSource).createQueryRunner();
    await runner.startTransaction();
    try {
      await migration.down(runner);
      await work(runner, migration);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  it('cuts stamps stored before the millisecond constraint to the millisecond they were shown with', async () => {
    await withMigrationUndone(new FilesCreatedAtMilliseconds1763794800000(), async (runner, migration) => {
      const id = newId('file');
      await runner.query(
        `INSERT INTO files (id, workspace_id, member_id, filename, mime_type, size_bytes, status, storage_key, created_at, expires_at)
         VALUES ($1, $2, $3, 'old.txt', 'text/plain', 1, 'PENDING', 'k', '2024-05-06T07:08:09.123987Z', now())`,
        [id, ws.workspaceId, ws.memberId],
      );
      await migration.up(runner);
      const [row]: { created_at: string }[] = await runner.query(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS created_at FROM files WHERE id = $1`,
        [id],
      );
      expect(row.created_at).toBe('2024-05-06T07:08:09.123000');
    });
  });

  it('keeps serving files completed before snapshots from where they were uploaded, and the sweep keeps those bytes', async () => {
    await withMigrationUndone(new FileCommits1763816400000(), async (runner, migration) => {
      const id = newId('file');
      await runner.query(
        `INSERT INTO files (id, workspace_id, member_id, filename, mime_type, size_bytes, status, storage_key, created_at, expires_at, completed_at)
         VALUES ($1, $2, $3, 'old.txt', 'text/plain', 1, 'COMPLETED', $2 || '/' || $1, date_trunc('milliseconds', now()), now(), now())`,
        [id, ws.workspaceId, ws.memberId],
      );
      await migration.up(runner);
      expect(await runner.query(`SELECT object_key FROM files WHERE id = $1`, [id])).toEqual([
        { object_key: `${ws.workspaceId}/${id}` },
      ]);
    });

    const api = filesClient(t, ws.key);
    const file = await api.created({ filename: 'old.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect((await upload(t, file, 'old')).status).toBe(200);
    await t.dataSource.query(
      `UPDATE files SET status = 'COMPLETED', completed_at = now(), object_key = storage_key, expires_at = now() WHERE id = $1`,
      [file.id],
    );
    expect((await download(t, (await api.url(file.id)).body.url)).text).toBe('old');
    await t.app.get(FileSweeper).sweep();
    expect(await localDriver.stored(t, { id: file.id, workspaceId: ws.workspaceId })).toEqual([file.id]);
    expect((await download(t, (await api.url(file.id)).body.url)).text).toBe('old');
  });
});

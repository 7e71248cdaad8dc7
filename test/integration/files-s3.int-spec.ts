import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { CreateBucketCommand, ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { Response } from 'supertest';
import { loadConfig, S3Settings } from '../../src/config/app-config';
import { MIB } from '../../src/modules/files/file-purposes';
import { FileStorage } from '../../src/modules/files/storage/file-storage';
import { S3FileStorage } from '../../src/modules/files/storage/s3-file-storage';
import { md5, sendBytes } from '../support/byte-http';
import { concurrently, sleep } from '../support/concurrency';
import { expectError } from '../support/errors';
import { createWorkspace } from '../support/factories';
import {
  describeFilesContract,
  download,
  FilesApp,
  filesClient,
  FilesDriver,
  startFilesApp,
  upload,
} from '../support/files-contract';
import { v1Headers } from '../support/test-app';

const S3_VARIABLES = [
  'S3_BUCKET',
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
];

/** The S3 settings of the environment (.ci/run exports them for a local radosgw), or a loud failure. */
function s3Environment(): Record<string, string> {
  const env = Object.fromEntries(
    S3_VARIABLES.filter((name) => process.env[name]).map((name) => [name, process.env[name]!]),
  );
  if (!env.S3_BUCKET || !env.S3_ENDPOINT) {
    throw new Error(
      'S3 is not configured: start one with scripts/s3-ceph.sh start DIR and source DIR/env ' +
        '(S3_BUCKET, S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE)',
    );
  }
  return env;
}

const settings: S3Settings = loadConfig(s3Environment()).s3!;
const s3 = new S3Client({
  region: settings.region,
  endpoint: settings.endpoint,
  forcePathStyle: settings.forcePathStyle,
  credentials: settings.credentials,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});

/** radosgw answers every refused presigned request 403 with an S3 XML error (SignatureDoesNotMatch, AccessDenied…). */
function expectS3Refusal(response: { status: number; text: string }): void {
  expect({ status: response.status, body: response.text }).toEqual({
    status: 403,
    body: expect.stringContaining('<Error>'),
  });
}

/** Every key under `prefix`. */
async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: settings.bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key!);
}

/** The highest of `samples` but 1 % of them. */
function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
}

const s3Driver: FilesDriver = {
  name: 's3 (Ceph radosgw)',
  env: s3Environment,
  async stored(_t, file) {
    const key = `${file.workspaceId}/${file.id}`;
    return [...(await keysUnder(`uploads/${key}`)), ...(await keysUnder(`files/${key}`))].sort();
  },
  // The signature covers content-type and content-length: the server refuses all four. A streamed
  // body without Content-Length is cut off: radosgw closes the connection without reading it.
  expectUploadRefused(response, reason) {
    if (reason === 'too_large' && response.connectionError)
      expect(response.connectionError).toMatch(/^(EPIPE|ECONNRESET)$/);
    else expectS3Refusal(response);
  },
  expectDownloadRefused: (response) => expectS3Refusal(response),
  expectShortUpload: (response) => expectS3Refusal(response),
  // The presigned PUT lives until the session's deadline; it now writes where nothing is read.
  expectLateUpload(response) {
    expect(response.status).toBe(200);
  },
};

beforeAll(async () => {
  try {
    await s3.send(new CreateBucketCommand({ Bucket: settings.bucket }));
  } catch (error) {
    if (!(error instanceof S3ServiceException && /BucketAlreadyOwnedByYou|BucketAlreadyExists/.test(error.name))) {
      throw new Error(`S3 at ${settings.endpoint} is not usable: ${String(error)}`, { cause: error });
    }
  }
});
afterAll(() => s3.destroy());

describeFilesContract(s3Driver);

describe('files on the S3 driver: what only it has', () => {
  let t: FilesApp;
  let api: ReturnType<typeof filesClient>;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startFilesApp(s3Driver);
    const ws = await createWorkspace(t.http);
    workspaceId = ws.workspaceId;
    api = filesClient(t, ws.key);
  });
  afterAll(() => t?.close());

  it('presigns a PUT of the upload key that signs content-type and content-length, and copies it on complete', async () => {
    const file = await api.created({ filename: 'c.txt', mimeType: 'text/plain', sizeBytes: 5 });
    const url = new URL(file.uploadUrl);
    expect(url.origin).toBe(settings.endpoint);
    expect(url.pathname).toBe(`/${settings.bucket}/uploads/${workspaceId}/${file.id}`);
    expect(url.searchParams.get('X-Amz-SignedHeaders')!.split(';')).toEqual(
      expect.arrayContaining(['content-length', 'content-type', 'host']),
    );
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(3600);
    expect((await upload(t, file, 'hello')).status).toBe(200);
    expect(await keysUnder(`files/${workspaceId}/${file.id}`)).toEqual([]);
    expect((await api.complete(file.id)).body.status).toBe('COMPLETED');
    const committed = await keysUnder(`files/${workspaceId}/${file.id}`);
    expect(committed).toEqual([expect.stringMatching(new RegExp(`^files/${workspaceId}/${file.id}\\.[0-9a-f]{16}$`))]);
    const downloadUrl = new URL((await api.url(file.id)).body.url);
    expect(downloadUrl.pathname).toBe(`/${settings.bucket}/${committed[0]}`);
  });

  it.each([
    ['', false],
    [', each with an Idempotency-Key', true],
  ])(
    'keeps 25 concurrent completes of a 20 MB file on a slow store off the connection pool%s: other workspaces read on',
    async (keysSaid, keyed) => {
      const bytes = randomBytes(20 * MIB);
      const file = await api.created({
        filename: 'big.bin',
        mimeType: 'application/octet-stream',
        sizeBytes: bytes.length,
      });
      expect((await upload(t, file, bytes)).status).toBe(200);
      const reader = await createWorkspace(t.http);
      const note = await t.http
        .post('/v1/notes')
        .set(v1Headers(reader.key))
        .send({ fields: { $title: 'Read on' } });
      expect(note.status).toBe(200);
      const reads: { status: number; ms: number }[] = [];
      const readNote = async () => {
        const start = performance.now();
        const response = await t.http.get(`/v1/notes/${note.body.id}`).set(v1Headers(reader.key));
        reads.push({ status: response.status, ms: performance.now() - start });
      };
      for (let i = 0; i < 60; i += 1) await readNote();
      const before = reads.splice(0).map((read) => read.ms);

      // Each S3 call first waits STORE_DELAY_MS: the copy, head and read of one complete take longer
      // than a request waits for a pooled connection (5 s), so a complete holding one through its
      // storage calls makes the reads queue and fail.
      const STORE_DELAY_MS = 2000;
      const client = t.app.get<S3FileStorage>(FileStorage).client;
      const send = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
      const slowed = jest.spyOn(client, 'send').mockImplementation((async (...args: unknown[]) => {
        await sleep(STORE_DELAY_MS);
        return send(...args);
      }) as never);
      const keys = Array.from({ length: 25 }, (_unused, index): Record<string, string> =>
        keyed ? { 'Idempotency-Key': `${file.id}-${index}` } : {},
      );
      let responses: Response[];
      try {
        let settled = false;
        const completing = concurrently(25, (index) => api.complete(file.id, { md5: md5(bytes) }, keys[index])).finally(
          () => (settled = true),
        );
        while (!settled) await readNote();
        responses = await completing;
      } finally {
        slowed.mockRestore();
      }
      expect(reads.filter((read) => read.status !== 200)).toEqual([]);
      const during = reads.map((read) => read.ms);
      process.stdout.write(
        `note reads during 25 completes${keysSaid}: p99 ${p99(during).toFixed(1)} ms (max ${Math.max(...during).toFixed(1)}, n=${during.length}); before: p99 ${p99(before).toFixed(1)} ms\n`,
      );
      // The reads share the machine with the copies and digests of 500 MB, so they slow down some;
      // what a complete holding a connection does to them is a wait for the pool's 5 s, then 503.
      expect(p99(during)).toBeLessThanOrEqual(5 * p99(before) + 1000);
      // One complete won; the others found the file COMPLETED, as a later complete would.
      const answers = responses.map((response) =>
        response.status === 200 ? 200 : `${response.status} ${response.body.error.code}`,
      );
      expect([...answers].sort()).toEqual([200, ...Array(24).fill('409 invalid_state')]);
      if (keyed) {
        const winner = answers.indexOf(200);
        const replay = await api.complete(file.id, { md5: md5(bytes) }, keys[winner]);
        expect({ replayed: replay.headers['idempotent-replayed'], body: replay.body }).toEqual({
          replayed: 'true',
          body: responses[winner].body,
        });
      }

      // The losers deleted their copies: what the file points at is the one object left.
      expect(await keysUnder(`files/${workspaceId}/${file.id}`)).toHaveLength(1);
      expect((await download(t, (await api.url(file.id)).body.url)).raw.equals(bytes)).toBe(true);
    },
    60_000,
  );

  it('serves nothing on the local byte routes', async () => {
    const file = await api.created({ filename: 'l.txt', mimeType: 'text/plain', sizeBytes: 2 });
    const local = `${t.config.publicUrl}/uploads/${file.id}?expires=9999999999&signature=x`;
    const response = await sendBytes(local, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'ok' });
    expectError(response as unknown as Response, 404, 'not_found');
    t.openapi.assert(response as unknown as Response);
  });
});

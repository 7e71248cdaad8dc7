import { CreateBucketCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { Response } from 'supertest';
import { loadConfig, S3Settings } from '../../src/config/app-config';
import { sendBytes } from '../support/byte-http';
import { expectError } from '../support/errors';
import { createWorkspace } from '../support/factories';
import { describeFilesContract, FilesApp, filesClient, FilesDriver, startFilesApp, upload } from '../support/files-contract';

const S3_VARIABLES = ['S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE'];

/** The S3 settings of the environment (.ci/run exports them for a local radosgw), or a loud failure. */
function s3Environment(): Record<string, string> {
  const env = Object.fromEntries(S3_VARIABLES.filter((name) => process.env[name]).map((name) => [name, process.env[name]!]));
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

async function exists(key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: settings.bucket, Key: key }));
    return true;
  } catch (error) {
    if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return false;
    throw error;
  }
}

/** radosgw answers every refused presigned request 403 with an S3 XML error (SignatureDoesNotMatch, AccessDenied…). */
function expectS3Refusal(response: { status: number; text: string }): void {
  expect({ status: response.status, body: response.text }).toEqual({ status: 403, body: expect.stringContaining('<Error>') });
}

const s3Driver: FilesDriver = {
  name: 's3 (Ceph radosgw)',
  env: s3Environment,
  async storedBytes(_t, file) {
    const key = `${file.workspaceId}/${file.id}`;
    return (await exists(`uploads/${key}`)) || (await exists(`files/${key}`));
  },
  // The signature covers content-type and content-length: the server refuses all four. A streamed
  // body without Content-Length is cut off: radosgw closes the connection without reading it.
  expectUploadRefused(response, reason) {
    if (reason === 'too_large' && response.connectionError) expect(response.connectionError).toMatch(/^(EPIPE|ECONNRESET)$/);
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
      throw new Error(`S3 at ${settings.endpoint} is not usable: ${String(error)}`);
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
    expect(await exists(`files/${workspaceId}/${file.id}`)).toBe(false);
    expect((await api.complete(file.id)).body.status).toBe('COMPLETED');
    expect(await exists(`files/${workspaceId}/${file.id}`)).toBe(true);
    const download = new URL((await api.url(file.id)).body.url);
    expect(download.pathname).toBe(`/${settings.bucket}/files/${workspaceId}/${file.id}`);
  });

  it('serves nothing on the local byte routes', async () => {
    const file = await api.created({ filename: 'l.txt', mimeType: 'text/plain', sizeBytes: 2 });
    const local = `${t.config.publicUrl}/uploads/${file.id}?expires=9999999999&signature=x`;
    const response = await sendBytes(local, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'ok' });
    expectError(response as unknown as Response, 404, 'not_found');
    t.openapi.assert(response as unknown as Response);
  });
});

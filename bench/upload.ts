/**
 * `npm run bench` (after bench/run.ts): upload throughput of a 100 MB file through the local
 * storage driver, and the service's memory while it streams. Starts the built service as its own
 * process (production mode, on the bench's embedded PostgreSQL), creates a file session,
 * PUTs 100 MB to its uploadUrl, completes it with its MD5 and downloads it back, sampling the
 * service's RSS (/proc/{pid}/status) throughout. The RSS growth must stay under 100 MB above idle.
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { rssBytes, runBench, seedWorkspace, startBenchDatabase, startService } from './support';

const MB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_UPLOAD_MB ?? 100) * MB;
const RSS_BUDGET = 100 * MB;
const CHUNK = 64 * 1024;

/** The pattern the upload sends, one reused 64 KiB block: the client allocates nothing per chunk. */
const block = Buffer.alloc(CHUNK);
for (let i = 0; i < CHUNK; i += 1) block[i] = (i * 31 + 7) % 251;

function* chunks(size: number): Generator<Buffer> {
  for (let sent = 0; sent < size; sent += CHUNK) yield sent + CHUNK <= size ? block : block.subarray(0, size - sent);
}

function md5(size: number): string {
  const hash = createHash('md5');
  for (const chunk of chunks(size)) hash.update(chunk);
  return hash.digest('hex');
}

async function api(port: number, key: string, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`http://127.0.0.1:${port}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'service-version': '2026-03-01', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** PUTs `size` bytes with backpressure; resolves with the status. */
function put(url: string, headers: Record<string, string>, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { ...headers, 'content-length': String(size) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    const source = chunks(size);
    const pump = () => {
      for (let next = source.next(); !next.done; next = source.next()) {
        if (!req.write(next.value)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

function get(url: string): Promise<{ status: number; bytes: number; md5: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      const hash = createHash('md5');
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash.update(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, md5: hash.digest('hex') }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** Runs `work` while sampling the service's RSS every 10 ms; returns its duration and peak RSS. */
async function sampled<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; seconds: number; peak: number }> {
  let peak = rssBytes(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 10);
  const started = process.hrtime.bigint();
  try {
    const result = await work();
    return { result, seconds: Number(process.hrtime.bigint() - started) / 1e9, peak: Math.max(peak, rssBytes(pid)) };
  } finally {
    clearInterval(sampler);
  }
}

runBench(async (folder) => {
  const database = await startBenchDatabase(folder);
  const db = new Client({ connectionString: database.url });
  await db.connect();
  const { key } = await seedWorkspace(db, 'bench uploads');
  await db.end();

  const { port, pid } = await startService(folder, database.url, {
    FILE_URL_SECRET: 'bench-file-url-secret-0123456789abcdef',
  });
  const session = (size: number) =>
    api(port, key, 'POST', '/v1/files', {
      filename: 'bench.bin',
      mimeType: 'application/octet-stream',
      sizeBytes: size,
    });
  // Warm the upload path once with a small file, then take the idle RSS.
  const warm = await session(MB);
  await put(warm.uploadUrl, warm.uploadHeaders, MB);
  await sleep(500);
  const idle = rssBytes(pid);

  const file = await session(SIZE);
  const digest = md5(SIZE);
  const uploaded = await sampled(pid, () => put(file.uploadUrl, file.uploadHeaders, SIZE));
  if (uploaded.result !== 200) throw new Error(`upload answered ${uploaded.result}`);
  const completed = await sampled(pid, () => api(port, key, 'POST', `/v1/files/${file.id}/complete`, { md5: digest }));
  const { url: downloadUrl } = await api(port, key, 'GET', `/v1/files/${file.id}/url`);
  const downloaded = await sampled(pid, () => get(downloadUrl));
  if (downloaded.result.bytes !== SIZE || downloaded.result.md5 !== digest) throw new Error('the download differs');

  const mb = SIZE / MB;
  const row = (name: string, run: { seconds: number; peak: number }, throughput = true) =>
    console.log(
      `${name.padEnd(34)} ${run.seconds.toFixed(2).padStart(6)} s` +
        (throughput ? `   ${(mb / run.seconds).toFixed(0).padStart(5)} MB/s` : '            ') +
        `   peak RSS ${(run.peak / MB).toFixed(0)} MB (+${((run.peak - idle) / MB).toFixed(1)} MB above idle)`,
    );
  console.log(`\nlocal storage driver, ${mb} MB file; service idle RSS ${(idle / MB).toFixed(0)} MB`);
  row(`PUT uploadUrl (${mb} MB)`, uploaded);
  row('POST /v1/files/{id}/complete (md5)', completed);
  row(`GET download URL (${mb} MB)`, downloaded);
  const worst = Math.max(uploaded.peak, completed.peak, downloaded.peak) - idle;
  if (worst >= RSS_BUDGET) throw new Error(`RSS grew ${(worst / MB).toFixed(1)} MB above idle (budget 100 MB)`);
});

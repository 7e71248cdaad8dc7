import { createHash } from 'node:crypto';
import { ClientRequest, request as httpRequest, IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';

/** A response of the byte routes (ours or an S3 server's), shaped enough like supertest's for expectError. */
export interface ByteResponse {
  status: number;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  text: string;
  /** Parsed JSON when the response is JSON. */
  body: any;
  req: { method: string; path: string };
  /**
   * Set (with status 0) when the server closed the connection while the body was being sent, before
   * any answer could be read: how some servers refuse a body they will not read.
   */
  connectionError?: string;
  /** Bytes of the body written before the answer (or the end). */
  sent: number;
}

/** The parsed body of a JSON answer; undefined for another content type or unparsable JSON. */
export function jsonBodyOf(headers: IncomingHttpHeaders, text: string): unknown {
  if (!/json/.test(String(headers['content-type']))) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export type ByteBody = Buffer | string | (() => AsyncIterable<Buffer>);

/**
 * One HTTP request with a streamed body (a Buffer, or chunks produced on demand with backpressure),
 * that tolerates a server answering before the body is sent: it then stops writing and returns the
 * answer, as a browser or curl would report it.
 */
export function sendBytes(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: ByteBody } = {},
): Promise<ByteResponse> {
  const method = options.method ?? 'GET';
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    let answered = false;
    let sent = 0;
    const req = httpRequest(target, { method, headers: options.headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        if (!req.writableEnded) req.destroy(); // answered before the whole body was sent
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        const body = jsonBodyOf(res.headers, text);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          raw,
          text,
          body,
          req: { method, path: `${target.pathname}${target.search}` },
          sent,
        });
      });
    });
    let sending = false;
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      if (sending && (error.code === 'EPIPE' || error.code === 'ECONNRESET')) {
        const path = `${target.pathname}${target.search}`;
        resolve({
          status: 0,
          headers: {},
          raw: Buffer.alloc(0),
          text: '',
          body: undefined,
          req: { method, path },
          connectionError: error.code,
          sent,
        });
      } else {
        reject(error);
      }
    });
    const body = options.body;
    if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) {
      sent = body === undefined ? 0 : Buffer.byteLength(body);
      req.end(body);
      return;
    }
    sending = true;
    void (async () => {
      try {
        for await (const chunk of body()) {
          if (answered || req.destroyed) break;
          sent += chunk.length;
          if (!req.write(chunk)) await drained(req);
        }
        if (!req.destroyed) req.end();
      } catch (error) {
        if (!answered) reject(error instanceof Error ? error : new Error(String(error)));
      }
    })();
  });
}

/** Resolves when `req` can take more, or is gone. */
function drained(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}

/** `size` bytes of a deterministic pattern, `chunkSize` at a time, from one reused buffer. */
export function patternChunks(size: number, chunkSize = 64 * 1024): () => AsyncIterable<Buffer> {
  const block = Buffer.alloc(chunkSize);
  for (let i = 0; i < chunkSize; i += 1) block[i] = (i * 31 + 7) % 251;
  return async function* () {
    for (let sent = 0; sent < size; sent += chunkSize)
      yield sent + chunkSize <= size ? block : block.subarray(0, size - sent);
  };
}

export async function md5Of(chunks: () => AsyncIterable<Buffer>): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of chunks()) hash.update(chunk);
  return hash.digest('hex');
}

export function md5(bytes: Buffer | string): string {
  return createHash('md5').update(bytes).digest('hex');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

import { IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface RawRequest {
  method: string;
  /** Path and query exactly as they go on the request line (already percent-encoded where meant). */
  target: string;
  headers: Record<string, string>;
  /** Bytes of the body: a string sent as UTF-8, or as Latin-1 to send arbitrary bytes. */
  body?: { text: string; encoding: 'utf8' | 'latin1' };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Parsed when the response says it is JSON and parses. */
  json: unknown;
  elapsedMs: number;
  /** Set when no answer could be read: the connection failed, or nothing came within the hard limit. */
  failure?: string;
}

/**
 * One request on its own connection, with full control of the request line, headers and body bytes
 * (supertest would re-encode some of them). A server that answers before reading the whole body is
 * answered as a client would see it; a server that does not answer within `hardLimitMs` is reported,
 * so that a stalled request fails the run instead of hanging it.
 */
export function sendRaw(baseUrl: URL, raw: RawRequest, hardLimitMs: number): Promise<RawResponse> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (response: Omit<RawResponse, 'elapsedMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...response, elapsedMs: elapsed() });
    };
    const failed = (failure: string) => settle({ status: 0, headers: {}, text: '', json: undefined, failure });
    const bytes = raw.body === undefined ? undefined : Buffer.from(raw.body.text, raw.body.encoding);
    const headers = bytes === undefined ? raw.headers : { 'Content-Length': String(bytes.length), ...raw.headers };
    const req = httpRequest(
      { host: baseUrl.hostname, port: baseUrl.port, method: raw.method, path: raw.target, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => failed(`response stream failed: ${error.message}`));
        res.on('end', () => {
          if (!req.writableFinished) req.destroy();
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          if (/json/i.test(String(res.headers['content-type']))) {
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
          }
          settle({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.setTimeout(hardLimitMs, () => {
      failed(`no answer within ${hardLimitMs} ms`);
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      failed(`connection failed before an answer: ${error.code ?? error.message}`),
    );
    req.end(bytes);
  });
}

import { Agent, IncomingHttpHeaders, request } from 'node:http';
import { jsonBodyOf } from './byte-http';

/** One exchange as the client saw it: an answer, or the socket error that took its place. */
export interface HttpCall {
  method: string;
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Parsed JSON when the answer is JSON. */
  body: any;
  /** Set (with status 0) when no answer arrived: ECONNREFUSED, ECONNRESET, socket hang up… */
  error?: string;
  startedAt: number;
  endedAt: number;
}

/**
 * One HTTP request through `agent` (keep-alive agents reuse their sockets, as load balancers and
 * SDKs do). Never rejects: a failed exchange is reported in `error`, so load loops can count it.
 */
export function httpCall(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: unknown; agent?: Agent },
): Promise<HttpCall> {
  const method = options.method ?? 'GET';
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (payload !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  const startedAt = Date.now();
  const base = { method, path: options.path, startedAt };
  return new Promise((resolve) => {
    // The request or its answer broke off: no status, the error's code in its place.
    const noAnswer = (error: NodeJS.ErrnoException) =>
      resolve({
        ...base,
        status: 0,
        headers: {},
        text: '',
        body: undefined,
        error: error.code ?? error.message,
        endedAt: Date.now(),
      });
    const req = request(`${baseUrl}${options.path}`, { method, headers, agent: options.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', noAnswer);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = jsonBodyOf(res.headers, text);
        resolve({ ...base, status: res.statusCode ?? 0, headers: res.headers, text, body, endedAt: Date.now() });
      });
    });
    req.on('error', noAnswer);
    req.end(payload);
  });
}

/**
 * `workers` loops sending `next(worker, i)` back to back until `stop()`; every exchange is kept.
 * `stop()` resolves once every loop has finished its last request.
 */
export function keepSending(
  workers: number,
  next: (worker: number, iteration: number) => Promise<HttpCall>,
): { calls: HttpCall[]; stop(): Promise<HttpCall[]> } {
  const calls: HttpCall[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async (_unused, worker) => {
    for (let i = 0; running; i += 1) {
      const call = await next(worker, i);
      calls.push(call);
      // A refused connection answers at once: do not spin on it.
      if (call.error) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  return {
    calls,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return calls;
    },
  };
}

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

/** A 2xx within this is a success (docs/api.md §13); the request is cut off at it. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** How much of a response body is read (and dropped) before the connection is closed. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendOutcome {
  /** The receiver's status, or null when it gave none (refused, timed out, reset). */
  status: number | null;
  durationMs: number;
  error: string | null;
  /** A 429's or 503's Retry-After, in seconds. */
  retryAfterSeconds: number | null;
}

/** Retry-After in seconds (RFC 9110 §10.2.3: seconds, or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  if (/^\d{1,10}$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Idle connections are closed after this: before a receiver's own keep-alive timeout (Node's is 5 s) would close them under a request. */
const IDLE_CONNECTION_MS = 2000;
/** Connections at once to one receiver address. */
const CONNECTIONS_PER_ADDRESS = 16;
/** Agents kept, one per protocol and address: the oldest is dropped beyond this. */
const MAX_AGENTS = 256;
const agents = new Map<string, HttpAgent>();

/**
 * The agent whose connections go to `address` only: connections are reused between attempts to
 * the same address (an agent pools them by host and port, so one agent per address keeps a
 * connection from ever serving an address the SSRF check did not let through for that attempt).
 */
function agentFor(url: URL, address: { address: string }): HttpAgent {
  const key = `${url.protocol}//${address.address}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = {
      keepAlive: true,
      timeout: IDLE_CONNECTION_MS,
      maxSockets: CONNECTIONS_PER_ADDRESS,
      maxFreeSockets: CONNECTIONS_PER_ADDRESS,
    };
    agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    agents.set(key, agent);
    if (agents.size > MAX_AGENTS) {
      const [oldest, dropped] = agents.entries().next().value!;
      agents.delete(oldest);
      dropped.destroy();
    }
  }
  return agent;
}

/**
 * POSTs `body` to `url`, connecting to `address` and only there (the address the SSRF check let
 * through: the host name is never resolved again), with the URL's host name kept for the Host
 * header and TLS. No redirect is followed; connections to the address are kept alive for the
 * next attempts (agentFor), and a request whose reused connection the receiver had just closed is
 * sent once more on a new one. The whole exchange is cut off after DELIVERY_TIMEOUT_MS, or when
 * `shutdown` aborts (the instance is shutting down).
 */
export async function postTo(
  url: URL,
  address: { address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
  shutdown?: AbortSignal,
): Promise<SendOutcome> {
  const outcome = await postOnce(url, address, headers, body, shutdown);
  return outcome === STALE_CONNECTION
    ? (postOnce(url, address, headers, body, shutdown, { reuse: false }) as Promise<SendOutcome>)
    : outcome;
}

/** A reused connection that was closed before any answer: the request may be sent again. */
const STALE_CONNECTION = Symbol('stale connection');

function postOnce(
  url: URL,
  address: { address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
  shutdown?: AbortSignal,
  { reuse = true } = {},
): Promise<SendOutcome | typeof STALE_CONNECTION> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all)
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [address]);
    else callback(null, address.address, address.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendOutcome | typeof STALE_CONNECTION>((resolve) => {
    const request = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinned,
      agent: reuse ? agentFor(url, address) : false,
    });
    // A timer and a listener of its own rather than AbortSignal.any of a timeout and `shutdown`:
    // those signals cost about as much node CPU as the rest of an attempt to a fast receiver.
    const cutOff = () => request.destroy(Object.assign(new Error('cut off'), { name: 'AbortError' }));
    const deadline = setTimeout(cutOff, DELIVERY_TIMEOUT_MS);
    shutdown?.addEventListener('abort', cutOff, { once: true });
    if (shutdown?.aborted) cutOff();
    const settle = (outcome: SendOutcome | typeof STALE_CONNECTION) => {
      clearTimeout(deadline);
      shutdown?.removeEventListener('abort', cutOff);
      resolve(outcome);
    };
    const why = (error: Error & { code?: string }) => {
      if (error.name !== 'AbortError' && error.code !== 'ABORT_ERR')
        return `${error.code ?? error.name}: ${error.message}`.slice(0, 500);
      return shutdown?.aborted
        ? 'cut off: the instance making this attempt shut down'
        : `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`;
    };
    const failed = (error: Error & { code?: string }) => {
      if (request.reusedSocket && error.code === 'ECONNRESET' && !shutdown?.aborted) settle(STALE_CONNECTION);
      else settle({ status: null, durationMs: elapsed(), error: why(error), retryAfterSeconds: null });
    };
    request.on('error', failed);
    request.on('response', (response: IncomingMessage) => {
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) response.destroy();
      });
      const done = () => {
        const status = response.statusCode ?? null;
        const succeeded = status !== null && status >= 200 && status < 300;
        const retryAfter = status === 429 || status === 503 ? retryAfterSeconds(response.headers['retry-after']) : null;
        settle({
          status,
          durationMs: elapsed(),
          error: succeeded ? null : `the receiver answered ${status}`,
          retryAfterSeconds: retryAfter,
        });
      };
      response.on('end', done);
      response.on('close', done);
      response.on('error', () => done());
    });
    request.end(body);
  });
}

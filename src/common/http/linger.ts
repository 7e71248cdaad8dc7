import type { Duplex, Readable } from 'node:stream';

/** How long and how much of a refused request is still read (and discarded) before its connection closes. */
const LINGER_MS = 2000;
const LINGER_BYTES = 1024 * 1024;

/**
 * After answering a request that was refused before its end: discard what the client still sends,
 * for at most LINGER_MS and LINGER_BYTES, then close the connection. Closing at once would make the
 * client's kernel see a reset instead of the answer (a lingering close, as HTTP servers do);
 * reading on would let a client push an unbounded body through. `incoming` is what carries the
 * client's bytes: the request, or the socket itself where no request was parsed.
 */
export function lingerThenClose(incoming: Readable, socket: Duplex): void {
  const close = () => socket.destroy();
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  let discarded = 0;
  incoming.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) close();
  });
  incoming.once('end', () => clearTimeout(timer));
  incoming.once('close', () => clearTimeout(timer));
}

import { connect } from 'node:net';

export interface RawAnswer {
  /** Everything the server sent before it closed the connection. */
  raw: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Set when the connection failed instead of closing (e.g. ECONNRESET). */
  error?: string;
}

/**
 * Sends `bytes` exactly as given on a new connection (no client-side HTTP library to fix them up)
 * and reads until the server closes it. The answer is parsed loosely: status line, headers, body.
 */
export function rawExchange(url: string, bytes: string | Buffer, timeoutMs = 5000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.setTimeout(timeoutMs, () => {
      error = 'timeout';
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code ?? failure.message));
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = raw.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        raw,
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        body: rest.join('\r\n\r\n'),
        error,
      });
    });
  });
}

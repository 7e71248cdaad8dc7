import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { createWorkspace, TestWorkspace } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/** The bound of every refusal (linger.ts: 2 s), with room for a loaded machine. */
const CLOSED_WITHIN_MS = 5000;
/** How long the client would go on sending: longer than the bound, shorter than the test's timeout. */
const SENDS_FOR_MS = 10_000;

describe('a JSON body over the limit is refused within the bound of every refusal', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    ws = await createWorkspace(t.http);
    await t.app.listen(0, '127.0.0.1');
    port = Number(new URL(await t.app.getUrl()).port);
  });
  afterAll(() => t.close());

  /**
   * Sends the head, then the body's bytes from `nextBytes` (framed by `frame`) every 20 ms until the
   * server closes the connection or SENDS_FOR_MS pass; answers what the server sent, when it closed,
   * and whether its answer came while the client still had bytes to send.
   */
  function sendSlowly(
    headers: string,
    frame: (bytes: Buffer) => Buffer,
    nextBytes: () => Buffer,
  ): Promise<{ answer: string; closedAfterMs: number; answeredWhileSending: boolean }> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const started = Date.now();
      let answer = '';
      let answeredWhileSending = false;
      socket.write(
        `POST /v1/notes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ws.key}\r\nService-Version: ${SERVICE_VERSION}\r\n` +
          `Content-Type: application/json\r\n${headers}\r\n`,
      );
      const sending = setInterval(() => {
        if (Date.now() - started > SENDS_FOR_MS) socket.end();
        else if (socket.writable) socket.write(frame(nextBytes()));
      }, 20);
      socket.on('data', (bytes: Buffer) => {
        if (answer === '') answeredWhileSending = !socket.writableEnded;
        answer += bytes.toString('latin1');
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(sending);
        resolve({ answer, closedAfterMs: Date.now() - started, answeredWhileSending });
      });
    });
  }

  const asSent = (bytes: Buffer) => bytes;
  const asChunk = (bytes: Buffer) =>
    Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);

  /** A JSON array of `kib`-KiB strings, as much as is asked for, without end. */
  function plainJson(kib: number): () => Buffer {
    let started = false;
    const item = Buffer.from(`"${'a'.repeat(kib * 1024 - 3)}",`);
    return () => {
      if (started) return item;
      started = true;
      return Buffer.concat([Buffer.from('{"a":['), item]);
    };
  }

  /**
   * Gzip of a JSON text of 64 MiB, `bytes` at a time: it decodes to over 1 MiB within its first few
   * KiB, and lasts longer than the client sends.
   */
  function gzippedJson(bytes: number): () => Buffer {
    const compressed = gzipSync(Buffer.from(`{"a":"${'a'.repeat(64 * 1024 * 1024)}"}`));
    let offset = 0;
    return () => compressed.subarray(offset, (offset += bytes));
  }

  /** Gzip members of nothing, about `kib` KiB of them at a time: bytes that decode to none. */
  function emptyGzipMembers(kib: number): () => Buffer {
    const member = gzipSync(Buffer.alloc(0));
    const members = Buffer.concat(Array.from({ length: Math.ceil((kib * 1024) / member.length) }, () => member));
    return () => members;
  }

  it.each([
    // 200 KiB/s: the linger's time runs out before its bytes do.
    ['a Content-Length over the limit', 'Content-Length: 104857600\r\n', asSent, () => plainJson(4)],
    ['a chunked body that grows over the limit', 'Transfer-Encoding: chunked\r\n', asChunk, () => plainJson(64)],
    [
      'a gzip body whose Content-Length is over the limit',
      'Content-Encoding: gzip\r\nContent-Length: 104857600\r\n',
      asSent,
      () => gzippedJson(100),
    ],
    [
      'a chunked gzip body that decodes to over the limit',
      'Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n',
      asChunk,
      () => gzippedJson(100),
    ],
    [
      'a chunked gzip body whose compressed bytes grow over the limit',
      'Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n',
      asChunk,
      () => emptyGzipMembers(64),
    ],
  ])(
    'answers %s with 413 while the client still sends, and closes the connection',
    async (_case, headers, frame, body) => {
      const { answer, closedAfterMs, answeredWhileSending } = await sendSlowly(headers, frame, body());
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain('"code":"payload_too_large"');
      expect(answeredWhileSending).toBe(true);
      expect(closedAfterMs).toBeLessThan(CLOSED_WITHIN_MS);
    },
  );
});

import { connect } from 'node:net';
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
   * Sends the head, then `kib` KiB of body (framed by `frame`) every 20 ms until the server closes
   * the connection or SENDS_FOR_MS pass; answers what the server sent and when it closed.
   */
  function sendSlowly(
    framing: string,
    frame: (chunk: string) => string,
    kib: number,
  ): Promise<{ answer: string; closedAfterMs: number }> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const started = Date.now();
      let answer = '';
      const chunk = `"${'a'.repeat(kib * 1024 - 2)}"`;
      socket.write(
        `POST /v1/notes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ws.key}\r\nService-Version: ${SERVICE_VERSION}\r\n` +
          `Content-Type: application/json\r\n${framing}\r\n${frame('{"a":[')}`,
      );
      const sending = setInterval(() => {
        if (Date.now() - started > SENDS_FOR_MS) socket.end();
        else if (socket.writable) socket.write(frame(`${chunk},`));
      }, 20);
      socket.on('data', (bytes: Buffer) => (answer += bytes.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(sending);
        resolve({ answer, closedAfterMs: Date.now() - started });
      });
    });
  }

  it.each([
    // 200 KiB/s: the linger's time runs out before its bytes do.
    ['a Content-Length over the limit', 'Content-Length: 104857600\r\n', (chunk: string) => chunk, 4],
    [
      'a chunked body that grows over the limit',
      'Transfer-Encoding: chunked\r\n',
      (chunk: string) => `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`,
      64,
    ],
  ])('answers %s with 413 and closes the connection', async (_case, framing, frame, kib) => {
    const { answer, closedAfterMs } = await sendSlowly(framing, frame, kib);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"payload_too_large"');
    expect(closedAfterMs).toBeLessThan(CLOSED_WITHIN_MS);
  });
});

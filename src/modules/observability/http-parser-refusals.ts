import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { ERROR_CODES, ErrorCode } from '../../common/errors/error-codes';
import { lingerThenClose } from '../../common/http/linger';
import { MetricsService } from './metrics.service';

interface Refusal {
  code: ErrorCode;
  message: string;
}

/**
 * What Node's HTTP parser refuses, before any route or middleware sees the request, as the error
 * body every other failure has. The statuses are Node's own; the codes are stable:
 * - 400 `malformed_request`: not HTTP/1.1 as the parser accepts it (unknown method, invalid
 *   Content-Length, Content-Length with Transfer-Encoding, invalid chunk…);
 * - 431 `header_too_large`: request line and headers over Node's 16 KiB;
 * - 413 `payload_too_large`: chunk extensions over Node's limit;
 * - 408 `request_timeout`: the headers or body did not arrive in time.
 */
function parserRefusal(error: NodeJS.ErrnoException & { reason?: string }): Refusal {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'header_too_large', message: 'The request line and headers are larger than 16 KiB' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', message: 'Chunk extensions are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'The request did not arrive in time' };
    default:
      // llhttp's reasons are fixed texts ("Invalid method encountered"), never the client's bytes.
      return {
        code: 'malformed_request',
        message: `The request is not valid HTTP/1.1: ${error.reason ?? 'parse error'}`,
      };
  }
}

/** CONNECT (a proxy tunnel), which Node answers by closing the connection without a word. */
const CONNECT_REFUSAL: Refusal = { code: 'method_not_allowed', message: 'CONNECT is not supported' };

/** An `Expect` other than 100-continue, which Node answers with an empty 417. */
const EXPECTATION_REFUSAL: Refusal = {
  code: 'expectation_failed',
  message: 'Only "Expect: 100-continue" is supported',
};

function statusOf({ code }: Refusal): number {
  return ERROR_CODES[code].status;
}

function headersAndBody({ code, message }: Refusal): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify({ error: { type: ERROR_CODES[code].type, code, message } });
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': randomUUID(),
    Connection: 'close',
  };
  return { headers, body };
}

/**
 * Answers, with the JSON error body, the requests that Node's HTTP layer refuses before the
 * application sees them: where Node's own answer is an empty 400, 408, 413, 417 or 431, or no
 * answer at all (CONNECT). Counted in `http_parser_refusals_total`. Nothing is written when the
 * socket is gone or a response already started on it (that would corrupt the stream); the
 * connection is then just closed.
 */
@Injectable()
export class HttpParserRefusals {
  private readonly answered = new WeakSet<Duplex>();

  constructor(private readonly metrics: MetricsService) {}

  /**
   * Called by the HTTP set-up (configureApp), not at bootstrap: the CLI runs the same module
   * without an HTTP server.
   */
  answerOn(server: Server): void {
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => this.refuseUnparsed(error, socket));
    server.on('connect', (_request: IncomingMessage, socket: Duplex) => this.writeRaw(socket, CONNECT_REFUSAL));
    server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
      this.metrics.countHttpParserRefusal(statusOf(EXPECTATION_REFUSAL));
      const { headers, body } = headersAndBody(EXPECTATION_REFUSAL);
      response.writeHead(statusOf(EXPECTATION_REFUSAL), headers).end(body);
    });
  }

  private refuseUnparsed(error: NodeJS.ErrnoException, socket: Duplex): void {
    // The parser reports every further chunk of a connection it gave up on: answer once.
    if (this.answered.has(socket)) return;
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    // Bytes after a request that asked for `Connection: close`: its answer is on the way, and the
    // connection closes after it, as asked.
    if (error.code === 'HPE_CLOSED_CONNECTION' && inFlight) return;
    this.writeRaw(socket, parserRefusal(error));
  }

  private writeRaw(socket: Duplex, refusal: Refusal): void {
    this.answered.add(socket);
    const status = statusOf(refusal);
    this.metrics.countHttpParserRefusal(status);
    const { headers, body } = headersAndBody(refusal);
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    // Ending (not destroying) lets the answer reach a client still sending; the rest is discarded.
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${body}`);
    lingerThenClose(socket, socket);
  }
}

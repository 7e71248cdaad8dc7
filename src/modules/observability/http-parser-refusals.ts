import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MetricsService } from './metrics.service';

/** How long a refused connection may take to read the answer before it is cut. */
const LINGER_MS = 2000;

interface Refusal {
  status: number;
  type: string;
  code: string;
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
function refusalFor(error: NodeJS.ErrnoException & { reason?: string }): Refusal {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        type: 'request_header_fields_too_large',
        code: 'header_too_large',
        message: 'The request line and headers are larger than 16 KiB',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, type: 'payload_too_large', code: 'payload_too_large', message: 'Chunk extensions are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, type: 'request_timeout', code: 'request_timeout', message: 'The request did not arrive in time' };
    default:
      // llhttp's reasons are fixed texts ("Invalid method encountered"), never the client's bytes.
      return {
        status: 400,
        type: 'bad_request',
        code: 'malformed_request',
        message: `The request is not valid HTTP/1.1: ${error.reason ?? 'parse error'}`,
      };
  }
}

function rawResponse({ status, type, code, message }: Refusal): string {
  const body = JSON.stringify({ error: { type, code, message } });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${randomUUID()}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Answers the requests Node's HTTP parser refuses with the JSON error body, where Node's own
 * answer is an empty 400 or 431, and counts them in `http_parser_refusals_total`. Nothing is
 * written when the socket is gone or a response already started on it (that would corrupt the
 * stream); the connection is then just closed.
 */
@Injectable()
export class HttpParserRefusals implements OnApplicationBootstrap {
  private readonly answered = new WeakSet<Duplex>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => this.refuse(error, socket));
  }

  private refuse(error: NodeJS.ErrnoException, socket: Duplex): void {
    // The parser reports every further chunk of a connection it gave up on: answer once.
    if (this.answered.has(socket)) return;
    this.answered.add(socket);
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(error);
    this.metrics.countHttpParserRefusal(refusal.status);
    // Ending (not destroying) lets the answer reach a client still sending; the rest is discarded.
    socket.end(rawResponse(refusal));
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  }
}

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { AppConfig } from '../../config/app-config';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** A client's X-Request-Id is kept when it is safe to log, else one is made; it is always echoed. */
function requestId(request: IncomingMessage, response: ServerResponse): string {
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
  response.setHeader('X-Request-Id', id);
  return id;
}

/**
 * Structured JSON logs, one line per request, with the request id; credentials are redacted.
 * The pino-http middleware is mounted by configureApp ahead of the body parser, so that requests
 * the parser refuses (400, 413, 415) are logged and echo X-Request-Id too; nestjs-pino only binds
 * to it (`useExisting`), else its own copy would run after the parser, and only for routed requests.
 */
export function loggerOptions(config: AppConfig): Params {
  return { pinoHttp: httpLoggerOptions(config), useExisting: true };
}

export function httpLoggerOptions(config: AppConfig): Options {
  return {
    level: config.logLevel,
    genReqId: requestId,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.query.token', 'req.query.signature'],
      censor: '[redacted]',
    },
    customLogLevel: (_request, response, error) =>
      error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info',
    serializers: {
      req: (request: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
        id: request.id,
        method: request.method,
        // Signed file URLs carry their credential in the query string.
        url: request.url.replace(/([?&](?:signature|token|X-Amz-Signature|X-Amz-Credential)=)[^&]*/gi, '$1[redacted]'),
        headers: request.headers,
      }),
    },
  };
}

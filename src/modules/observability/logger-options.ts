import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { AppConfig } from '../../config/app-config';
import { REDACTED, SecretRedactor } from './secret-redaction';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Headers that carry credentials by design, whatever their value looks like. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'x-admin-token'];

/** A copy of the request headers with those of CREDENTIAL_HEADERS replaced whole. */
function withoutCredentials(headers: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...headers };
  for (const name of CREDENTIAL_HEADERS) if (copy[name] !== undefined) copy[name] = REDACTED;
  return copy;
}

/**
 * A client's X-Request-Id is kept when it is safe to log and carries no secret (a key sent there by
 * mistake would be echoed and logged); otherwise one is made. It is always echoed.
 */
function requestIdOf(secrets: SecretRedactor) {
  return (request: IncomingMessage, response: ServerResponse): string => {
    const given = request.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID_PATTERN.test(given) && !secrets.contains(given) ? given : randomUUID();
    response.setHeader('X-Request-Id', id);
    return id;
  };
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

/**
 * Credentials never reach a log line: the credential headers are replaced whole, and every line,
 * whatever wrote it (the access log, an error with its cause, Nest), has anything shaped like an
 * API key and the admin token replaced as it is written.
 */
export function httpLoggerOptions(config: AppConfig): Options {
  const secrets = new SecretRedactor(config.adminToken);
  return {
    level: config.logLevel,
    genReqId: requestIdOf(secrets),
    hooks: { streamWrite: (line) => secrets.redact(line) },
    customLogLevel: (_request, response, error) =>
      error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info',
    serializers: {
      req: (request: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
        id: request.id,
        method: request.method,
        // Signed file URLs carry their credential in the query string.
        url: request.url.replace(/([?&](?:signature|token|X-Amz-Signature|X-Amz-Credential)=)[^&]*/gi, `$1${REDACTED}`),
        headers: withoutCredentials(request.headers),
      }),
    },
  };
}

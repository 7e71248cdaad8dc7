import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';
import type { RequestObserver } from '../../common/http/request-observer';
import { REDACTED, SecretRedactor } from './secret-redaction';
import { ServiceLogger } from './service-logger';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Headers that carry credentials by design, whatever their value looks like. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'x-admin-token'];

/** A copy of the request headers with those of CREDENTIAL_HEADERS replaced whole. */
function withoutCredentials(headers: IncomingHttpHeaders): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...headers };
  for (const name of CREDENTIAL_HEADERS) if (copy[name] !== undefined) copy[name] = REDACTED;
  return copy;
}

/** Signed file URLs carry their credential in the query string. */
export function loggableUrl(url: string): string {
  return url.replace(/([?&](?:signature|token|X-Amz-Signature|X-Amz-Credential)=)[^&]*/gi, `$1${REDACTED}`);
}

/**
 * A client's X-Request-Id is kept when it is safe to log and carries no secret (a key sent there by
 * mistake would be echoed and logged); otherwise one is made.
 */
function requestIdOf(request: Request, secrets: SecretRedactor): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) && !secrets.contains(given) ? given : randomUUID();
}

/**
 * Echoes X-Request-Id and writes one access-log line per request once it is answered, at info, or
 * warn for 4xx, error for 5xx. Runs before the body is read, so that requests the body parser
 * refuses are logged and echo their id too. The line is built only when its level is enabled: at
 * LOG_LEVEL=warn a successful request costs a header and one listener.
 */
export function requestLogging(logger: ServiceLogger): RequestObserver {
  return (request, response) => {
    const id = requestIdOf(request, logger.secrets);
    response.setHeader('X-Request-Id', id);
    const started = Date.now();
    response.once('close', () => {
      const status = response.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.pino.isLevelEnabled(level)) return;
      const line = {
        req: {
          id,
          method: request.method,
          url: loggableUrl(request.originalUrl),
          headers: withoutCredentials(request.headers),
        },
        res: { statusCode: status },
        responseTime: Date.now() - started,
      };
      logger.pino[level](line, response.writableFinished ? 'request completed' : 'request aborted');
    });
  };
}

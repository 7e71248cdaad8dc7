import type { ServerResponse } from 'node:http';
import type { ParsedUrlQuery } from 'node:querystring';
import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';
import { sendError } from '../errors/send-error';
import { NOT_MODIFIED, withEntityTag } from './entity-tags';
import { sendJson } from './json-response';
import { apiJsonBody } from './json-body';
import type { RequestObserver } from './request-observer';

/** A percent-encoded unreserved character (RFC 3986 §2.3): ALPHA, DIGIT, `-`, `.`, `_`, `~`. */
const ENCODED_UNRESERVED = /%(4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2[DE]|5F|7E)/gi;

/**
 * The path as routing must read it. Percent-encoding an unreserved character does not change which
 * resource a URI names (RFC 3986 §6.2.2.2), so `/%76%31/notes` is `/v1/notes`; everything else stays
 * encoded (an encoded `/` inside an id is part of the id, not a separator).
 */
function normalizedTarget(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!path.includes('%')) return url;
  const decoded = path.replace(ENCODED_UNRESERVED, (encoded) => String.fromCharCode(parseInt(encoded.slice(1), 16)));
  return query === -1 ? decoded : decoded + url.slice(query);
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** A `.` or `..` path segment. */
const DOT_SEGMENT = /\/\.\.?(\/|$)/;

/**
 * Paths that name nothing this service has, whatever route they resemble: one that does not
 * percent-decode (Express's router would answer its own bare 400 while decoding a parameter), and
 * one with a dot segment (no resource has one, and Swagger UI's file server would resolve it).
 */
function namesNothing(request: Request): boolean {
  const path = request.path;
  return (path.includes('%') && !decodes(path)) || DOT_SEGMENT.test(path);
}

/** What a process without the `api` role serves (ROLES): liveness and readiness, as routed (any case, a trailing slash). */
const HEALTH_PATH = /^\/health(\/ready)?\/?$/i;

/**
 * What runs first on every request: it is observed (request id, access log, metrics) before
 * anything can answer it; its target is normalised for routing; a path that names nothing is a
 * 404 `not_found`, like an id of the wrong shape, and so is every path but the health checks in a
 * process that does not serve the API (a worker).
 */
function requestEntry(observers: RequestObserver[], servesApi: boolean) {
  return (request: Request, response: Response, next: NextFunction): void => {
    for (const observe of observers) observe(request, response);
    request.url = normalizedTarget(request.url);
    if (namesNothing(request) || (!servesApi && !HEALTH_PATH.test(request.path)))
      return sendError(response, ApiError.notFound());
    next();
  };
}

function isJsonBody(body: unknown): body is object {
  return typeof body === 'object' && body !== null && !(body instanceof StreamableFile) && !(body instanceof Error);
}

/**
 * Nest's Express adapter, answering a handler's JSON result straight through Node (sendJson):
 * `res.json` re-parses and re-formats the Content-Type it sets, looks the type up again, checks
 * the request's freshness for an ETag this API never sends and validates the status, a tenth of a
 * read's node CPU. Everything else (streams, no body) is Express's, as Nest does it.
 */
export class ApiExpressAdapter extends ExpressAdapter {
  override reply(response: ServerResponse, result: unknown, statusCode?: number): unknown {
    const body = withEntityTag(response, result);
    if (body === NOT_MODIFIED) {
      response.statusCode = 304;
      response.end();
      return undefined;
    }
    if (!isJsonBody(body)) return super.reply(response, body, statusCode);
    sendJson(response, statusCode ?? response.statusCode, body);
    return undefined;
  }
}

/**
 * Express under Nest, set up as the service's contract says (docs/api.md §1):
 * - the query string is parsed flat by `node:querystring` (`filter[x]=1` is the key `filter[x]`;
 *   `qs` would nest it);
 * - paths match without case and with or without a trailing slash (Express's defaults);
 * - no weak ETag: Express would hash every body for conditional requests no client of this API
 *   makes (5–9 % of a read's CPU); the file upload sets its own;
 * - every request is observed first (a worker answers 404 to all but the health checks), and the
 *   API routes' bodies are JSON (apiJsonBody) read before authentication, so that a body is judged
 *   the same on every route, known or not.
 * Node's own timeouts stay (5 s keep-alive, 300 s per request); its parser's refusals are answered
 * by HttpParserRefusals.
 */
export function configureHttpServer(
  app: NestExpressApplication,
  config: AppConfig,
  observers: RequestObserver[],
): void {
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(requestEntry(observers, config.roles.api));
  app.use(apiJsonBody());
}

const NO_QUERY: ParsedUrlQuery = Object.freeze({});

/**
 * The query of a request as the service parses it: flat, by `node:querystring` (the `query parser`
 * set above), so every value is a string or an array of strings, never the nested objects Express's
 * type allows for `qs`.
 */
export function queryOf(request: Request): ParsedUrlQuery {
  // Express parses the query string again on every read of `request.query`.
  return request.url.includes('?') ? (request.query as ParsedUrlQuery) : NO_QUERY;
}

import type { IncomingMessage } from 'node:http';
import { networkInterfaces } from 'node:os';
import { parse as parseQueryString } from 'node:querystring';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';
import { sendError } from '../errors/send-error';
import { parseApiJsonBody } from './json-body';
import type { RequestObserver } from './request-observer';
import { ROUTER_OPTIONS, RouteTable } from './route-table';

/** `http://host:port` (any scheme, any case) at the start of an absolute-form request target. */
const SCHEME_AND_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/**
 * The request target as routing reads it: the path and query only. A `#fragment` is not part of
 * what a client requests (RFC 9110 §7.1; Fastify would read it as query), and an absolute-form
 * target (`GET http://host/v1/notes`, which HTTP/1.1 servers must accept) is its path.
 */
function originForm(url: string): string {
  const fragment = url.indexOf('#');
  const target = fragment === -1 ? url : url.slice(0, fragment);
  if (target.charCodeAt(0) === 0x2f /* / */ || !SCHEME_AND_AUTHORITY.test(target)) return target;
  const rest = target.replace(SCHEME_AND_AUTHORITY, '');
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * The HTTP server: Fastify under Nest (Express's router, middleware walk and response helpers cost
 * a read half its CPU). Everything a client can see is kept as it was on Express:
 * - the query string is parsed flat by `node:querystring` (`filter[x]=1` is the key `filter[x]`);
 * - paths match without case and with or without a trailing slash (ROUTER_OPTIONS), fragments and
 *   absolute-form targets are routed by their path (originForm);
 * - a path that does not percent-decode names nothing: 404 `not_found`, with a request id, logged
 *   and counted like any request (Fastify's own answer would be a bare 400);
 * - Node's timeouts (5 s keep-alive, 300 s per request), which Fastify otherwise replaces;
 * - Node's refusals before routing are answered by HttpParserRefusals alone.
 */
export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    trustProxy: config.trustProxy,
    keepAliveTimeout: 5_000,
    requestTimeout: 300_000,
    clientErrorHandler: () => undefined,
    rewriteUrl: (request: IncomingMessage) => originForm(request.url ?? '/'),
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) => {
      request.server.observeRequest(request, reply);
      sendError(reply, ApiError.notFound());
    },
    routerOptions: { ...ROUTER_OPTIONS, querystringParser: (text) => parseQueryString(text) },
  });
}

/** Swagger UI's page and files, and the OpenAPI document. */
const DOCS_ROUTE = /^\/docs(-json|-yaml)?(\/|$)/;

/** Text types sent without a charset (Swagger's page, its YAML, its scripts); the bytes are UTF-8. */
const TEXT_WITHOUT_CHARSET = /^(text\/[^;]+|application\/javascript)$/;

/**
 * Names UTF-8 on the text the docs routes send without a charset: the OpenAPI YAML holds non-ASCII
 * text that a client reading it alone would otherwise decode by guess.
 */
const withUtf8Charset: onSendHookHandler = (_request, reply, payload, done) => {
  const type = reply.getHeader('content-type');
  if (typeof type === 'string' && TEXT_WITHOUT_CHARSET.test(type)) reply.header('content-type', `${type}; charset=utf-8`);
  done(null, payload);
};

/** Where a Content-Type waits while Fastify's body step runs (see configureHttpServer). */
const setAsideContentType = new WeakMap<IncomingMessage, string>();

/**
 * The request pipeline on the Fastify instance, before any route is added:
 * - every request is observed first (request id, access log, metrics), once, also one that never
 *   routes or skips the hooks (observeRequest);
 * - the body is the service's alone to judge (docs/api.md §1): Fastify refuses a Content-Type it
 *   cannot parse before any hook can answer (a 415 ahead of authentication even without a body,
 *   and the upload route's own refusal lost), so the header is set aside for Fastify's body step
 *   and put back before validation, where parseApiJsonBody reads the body Fastify left unread;
 * - every route is recorded in the RouteTable; the docs routes name the charset of their text.
 */
export function configureHttpServer(server: FastifyInstance, routes: RouteTable, observers: RequestObserver[]): void {
  routes.track(server);
  server.addHook('onRoute', (route) => {
    if (DOCS_ROUTE.test(route.url)) route.onSend = [...[route.onSend ?? []].flat(), withUtf8Charset];
  });
  const observed = new WeakSet<IncomingMessage>();
  const observe: RequestObserver = (request, reply) => {
    if (observed.has(request.raw)) return;
    observed.add(request.raw);
    for (const observer of observers) observer(request, reply);
  };
  server.decorate('observeRequest', observe);
  server.addHook('onRequest', (request, reply, done) => {
    observe(request, reply);
    const contentType = request.raw.headers['content-type'];
    if (contentType !== undefined) {
      setAsideContentType.set(request.raw, contentType);
      request.raw.headers['content-type'] = undefined;
    }
    done();
  });
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', (_request, _body, done) => done(null, undefined));
  server.addHook('preValidation', async (request) => {
    const contentType = setAsideContentType.get(request.raw);
    if (contentType !== undefined) request.raw.headers['content-type'] = contentType;
    await parseApiJsonBody(request);
  });
}

/**
 * The address that takes connections on every interface, as Node picks it when no host is given
 * (Fastify always binds one): `::`, which also takes IPv4, where the system has IPv6, else 0.0.0.0.
 */
export function everyInterface(): string {
  const hasIpv6 = Object.values(networkInterfaces()).some((addresses) => addresses?.some(({ family }) => family === 'IPv6'));
  return hasIpv6 ? '::' : '0.0.0.0';
}

import { parse as parseQueryString } from 'node:querystring';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';
import { sendError } from '../errors/send-error';
import './request-observer';
import { ROUTER_OPTIONS } from './route-table';

/**
 * The HTTP server: Fastify under Nest (Express's router, middleware walk and response helpers cost
 * a read half its CPU). Everything a client can see is kept as it was on Express:
 * - the query string is parsed flat by `node:querystring` (`filter[x]=1` is the key `filter[x]`);
 * - paths match without case and with or without a trailing slash (ROUTER_OPTIONS);
 * - a path that does not percent-decode names nothing: 404 `not_found`, with a request id, logged
 *   and counted like any request (Fastify's own answer would be a bare 400);
 * - Node's timeouts (5 s keep-alive, 300 s per request), which Fastify otherwise replaces;
 * - Node's refusals before routing are answered by HttpParserRefusals alone.
 * Bodies are parsed by parseApiJsonBody (json-body.ts), not by Fastify's parsers.
 */
export function createHttpAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    trustProxy: config.trustProxy,
    keepAliveTimeout: 5_000,
    requestTimeout: 300_000,
    clientErrorHandler: () => undefined,
    frameworkErrors: (_error: Error, request: FastifyRequest, reply: FastifyReply) => {
      request.server.observeRequest(request, reply);
      sendError(reply, ApiError.notFound());
    },
    routerOptions: { ...ROUTER_OPTIONS, querystringParser: (text) => parseQueryString(text) },
  });
}

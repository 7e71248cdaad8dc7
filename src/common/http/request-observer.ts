import type { FastifyReply, FastifyRequest } from 'fastify';

/** What every request goes through before anything answers it (request id, access log, metrics). */
export type RequestObserver = (request: FastifyRequest, reply: FastifyReply) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by configureApp, once the services it needs exist; also run for requests that never route. */
    observeRequest: RequestObserver;
  }
}

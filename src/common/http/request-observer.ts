import type { FastifyReply, FastifyRequest } from 'fastify';

/** What every request goes through before anything answers it (request id, access log, metrics). */
export type RequestObserver = (request: FastifyRequest, reply: FastifyReply) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Observes a request once (later calls do nothing). Set by configureHttpServer, once the
     * services it needs exist; also called where Fastify answers without running the hooks.
     */
    observeRequest: RequestObserver;
  }
}

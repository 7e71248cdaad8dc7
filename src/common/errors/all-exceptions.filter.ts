import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notJsonMediaType } from '../http/json-body';
import { RouteTable } from '../http/route-table';
import { ApiError } from './api-error';
import { sendError } from './send-error';
import { toApiError } from './to-api-error';

function pathOf(request: FastifyRequest): string {
  const query = request.url.indexOf('?');
  return query === -1 ? request.url : request.url.slice(0, query);
}

/** The one place where failures become responses (docs/api.md §2): no stack, no SQL, ever. */
@Catch()
@Injectable()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly routes: RouteTable) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    let error = this.unparseableContentType(exception, request) ?? toApiError(exception);
    if (!error) {
      this.logger.error({ err: exception, path: pathOf(request) }, 'unhandled error');
      error = ApiError.internal();
    }
    if (exception instanceof NotFoundException && !(exception instanceof ApiError)) {
      error = this.routeNotFound(request) ?? error;
    }
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.end();
      return;
    }
    sendError(reply, error);
  }

  /**
   * Fastify checks the Content-Type of every request with a body before any hook, and Nest hands
   * its refusal over as a bare 415 (the service's own are ApiErrors): a header it cannot parse is
   * the 415 the JSON body parser gives any other non-JSON type, and on a path no route serves it
   * is that path's 404 or 405.
   */
  private unparseableContentType(exception: unknown, request: FastifyRequest): ApiError | undefined {
    if (!(exception instanceof HttpException) || exception instanceof ApiError || exception.getStatus() !== 415) return undefined;
    if (request.is404) return this.routeNotFound(request) ?? ApiError.notFound('Route');
    return notJsonMediaType();
  }

  /** A known path with another method is a 405 with `Allow`, not a 404. */
  private routeNotFound(request: FastifyRequest): ApiError | undefined {
    const path = pathOf(request);
    const methods = this.routes.allowedMethods(path);
    if (methods.length === 0) return undefined;
    return new ApiError(
      405,
      'method_not_allowed',
      `${request.method} is not allowed on ${path}; allowed: ${methods.join(', ')}`,
      undefined,
      { Allow: methods.join(', ') },
    );
  }
}

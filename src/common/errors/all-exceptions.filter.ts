import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RouteTable } from '../http/route-table';
import { ApiError } from './api-error';
import { sendError } from './send-error';
import { toApiError } from './to-api-error';

function pathOf(request: FastifyRequest): string {
  const query = request.url.indexOf('?');
  return query === -1 ? request.url : request.url.slice(0, query);
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * What the framework answered on a request that matched no route: Nest's not-found handler, or a
 * refusal Fastify makes before it (a QUERY request without a body). Either way the path is
 * unknown, or known with other methods.
 */
function isUnroutedRefusal(exception: unknown, request: FastifyRequest): boolean {
  return request.is404 && exception instanceof HttpException && !(exception instanceof ApiError);
}

/**
 * @fastify/static (Swagger UI's files) refuses a path under /docs it will not serve (`..`, `.`, a
 * NUL byte) with an Error carrying a 4xx `statusCode`: a path that names nothing, as any unknown
 * path. Nothing else in the service throws such an error.
 */
function isStaticFileRefusal(exception: unknown): boolean {
  if (!(exception instanceof Error) || exception instanceof HttpException) return false;
  const { statusCode } = exception as { statusCode?: unknown };
  return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500;
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
    let error: ApiError | undefined;
    if (isUnroutedRefusal(exception, request)) {
      // Fastify's 404 router may have skipped the hooks (a path that does not decode, with a method
      // no route has): observed here if it was not, so it too has its request id, log line and metric.
      request.server.observeRequest(request, reply);
      error = this.routeNotFound(request);
    } else if (isStaticFileRefusal(exception)) {
      error = ApiError.notFound('Route');
    } else {
      error = toApiError(exception);
    }
    if (!error) {
      this.logger.error({ err: exception, path: pathOf(request) }, 'unhandled error');
      error = ApiError.internal();
    }
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.end();
      return;
    }
    sendError(reply, error);
  }

  /**
   * An unknown path is a 404 (a path that does not decode names no resource, as on every method);
   * a known path with another method is a 405 with `Allow`.
   */
  private routeNotFound(request: FastifyRequest): ApiError {
    const path = pathOf(request);
    const methods = this.routes.allowedMethods(path);
    if (methods.length === 0) return decodes(path) ? ApiError.notFound('Route') : ApiError.notFound();
    return new ApiError(
      405,
      'method_not_allowed',
      `${request.method} is not allowed on ${path}; allowed: ${methods.join(', ')}`,
      undefined,
      { Allow: methods.join(', ') },
    );
  }
}

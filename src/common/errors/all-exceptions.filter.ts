import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { routeAnswers, RouteTable, type RouterRoute } from '../http/route-table';
import { ApiError } from './api-error';
import { sendError } from './send-error';
import { toApiError } from './to-api-error';

/**
 * Nest's answer to a request no route answered (its not-found handler, mounted after every route):
 * an HttpException of Nest's own on a request no route has a handler for (a HEAD on a path without
 * GET reaches it with the route of its path set). Every failure of the service's own code is an
 * ApiError.
 */
function isUnrouted(exception: unknown, request: Request): boolean {
  return exception instanceof HttpException && !routeAnswers(request.route as RouterRoute | undefined, request.method);
}

/** The one place where failures become responses (docs/api.md §2): no stack, no SQL, ever. */
@Catch()
@Injectable()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly routes: RouteTable) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    let error = isUnrouted(exception, request) ? this.routeNotFound(request) : toApiError(exception);
    if (!error) {
      this.logger.error({ err: exception, path: request.path }, 'unhandled error');
      error = ApiError.internal();
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    sendError(response, error);
  }

  /** An unknown path is a 404; a known path with another method is a 405 with `Allow`. */
  private routeNotFound(request: Request): ApiError {
    const methods = this.routes.allowedMethods(request.path);
    if (methods.length === 0) return ApiError.notFound('Route');
    return new ApiError(
      405,
      'method_not_allowed',
      `${request.method} is not allowed on ${request.path}; allowed: ${methods.join(', ')}`,
      undefined,
      { Allow: methods.join(', ') },
    );
  }
}

import { ArgumentsHost, Catch, ExceptionFilter, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { allowedMethods } from '../http/allowed-methods';
import { ApiError } from './api-error';
import { sendError } from './send-error';
import { toApiError } from './to-api-error';

/** The one place where failures become responses (docs/api.md §2): no stack, no SQL, ever. */
@Catch()
@Injectable()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    let error = toApiError(exception);
    if (!error) {
      this.logger.error({ err: exception, path: request.path }, 'unhandled error');
      error = ApiError.internal();
    }
    if (exception instanceof NotFoundException && !(exception instanceof ApiError)) {
      error = this.routeNotFound(request) ?? error;
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    sendError(response, error);
  }

  /** A known path with another method is a 405 with `Allow`, not a 404. */
  private routeNotFound(request: Request): ApiError | undefined {
    const methods = allowedMethods(this.adapterHost.httpAdapter.getInstance(), request.path);
    if (methods.length === 0) return undefined;
    return new ApiError(
      405,
      'method_not_allowed',
      `${request.method} is not allowed on ${request.path}; allowed: ${methods.join(', ')}`,
      undefined,
      { Allow: methods.join(', ') },
    );
  }
}

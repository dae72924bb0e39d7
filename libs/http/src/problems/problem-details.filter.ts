import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { FASTIFY_ERROR_PROBLEMS } from './framework-problems';
import {
  PROBLEM_CONTENT_TYPE,
  PROBLEM_TYPES,
  ProblemDetails,
  ProblemException,
} from './problem-details';

const STATUS_PROBLEMS: Record<number, { type: string; title: string }> = {
  400: { type: PROBLEM_TYPES.invalidRequest, title: 'The request is not valid' },
  401: { type: PROBLEM_TYPES.unauthenticated, title: 'Authentication required' },
  404: { type: PROBLEM_TYPES.notFound, title: 'Not found' },
  405: { type: PROBLEM_TYPES.methodNotAllowed, title: 'Method not allowed' },
  409: { type: PROBLEM_TYPES.conflict, title: 'Conflict' },
  413: { type: PROBLEM_TYPES.payloadTooLarge, title: 'Request body too large' },
  415: { type: PROBLEM_TYPES.unsupportedMediaType, title: 'Unsupported media type' },
  429: { type: PROBLEM_TYPES.tooManyRequests, title: 'Too many requests' },
  503: { type: PROBLEM_TYPES.unavailable, title: 'Service unavailable' },
};

/**
 * Every error leaves the service as an RFC 9457 problem document. Unexpected errors are logged
 * with their stack and answered with a generic 500 that reveals nothing of the internals.
 */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  /**
   * `logger`: the app's own logger, so that errors carry the app's service name and the request
   * id even when several apps share a process (Nest's static Logger is the last app's).
   */
  constructor(private readonly logger?: PinoLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const path = request.url?.split('?')[0];
    const allowed =
      exception instanceof NotFoundException && !request.routeOptions?.url
        ? allowedMethods(request, path)
        : [];
    const { problem, headers } =
      allowed.length > 0
        ? {
            problem: {
              ...STATUS_PROBLEMS[405],
              status: 405,
              detail: 'This resource does not support the request method.',
            },
            headers: { allow: allowed.join(', ') },
          }
        : this.toProblem(exception, request.id);
    const instance = path;
    void reply
      .status(problem.status)
      .headers({ ...headers, 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store' })
      .send({ ...problem, instance });
  }

  private toProblem(
    exception: unknown,
    requestId: string,
  ): {
    problem: ProblemDetails;
    headers: Record<string, string>;
  } {
    if (exception instanceof ProblemException) {
      return { problem: exception.problem, headers: exception.headers };
    }
    // Nest wraps Fastify's request errors in an HttpException whose cause is the original.
    const fastifyError = (
      exception instanceof HttpException && exception.cause ? exception.cause : exception
    ) as {
      code?: string;
      statusCode?: number;
      message: string;
    };
    const fromFastify = fastifyError?.code ? FASTIFY_ERROR_PROBLEMS[fastifyError.code] : undefined;
    if (fromFastify) {
      return { problem: { ...fromFastify }, headers: {} };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status < 500) {
        const known = STATUS_PROBLEMS[status] ?? { type: 'about:blank', title: exception.name };
        // Nest's own 404 says "Cannot GET <path>": never echo the request.
        const detail = status === 404 ? 'No such resource.' : exception.message;
        return { problem: { ...known, status, detail }, headers: {} };
      }
    }
    const status = fastifyError?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const known = STATUS_PROBLEMS[status] ?? { type: 'about:blank', title: 'Bad request' };
      return { problem: { ...known, status }, headers: {} };
    }
    if (this.logger) {
      this.logger.error(
        { err: exception, request_id: requestId, context: 'ProblemDetailsFilter' },
        'unexpected error',
      );
    } else {
      new Logger('ProblemDetailsFilter').error(
        exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
      );
    }
    return {
      problem: {
        type: PROBLEM_TYPES.internal,
        title: 'Internal error',
        status: 500,
        detail: 'The service could not complete the request. It has been logged.',
      },
      headers: {},
    };
  }
}

/** The methods a route of this path answers (for a 405's Allow), from Fastify's router. */
function allowedMethods(request: FastifyRequest, path: string | undefined): string[] {
  if (!path) {
    return [];
  }
  return METHODS.filter((method) => request.server.findRoute({ method, url: path }) !== null);
}

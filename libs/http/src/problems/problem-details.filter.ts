import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
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

/** Fastify's own request errors (body parsing, limits) carry a code and a statusCode. */
const FASTIFY_ERRORS: Record<string, () => ProblemDetails> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => ({
    type: PROBLEM_TYPES.malformedJson,
    title: 'Malformed JSON',
    status: 400,
    detail: 'The request body is not valid JSON.',
  }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => ({
    type: PROBLEM_TYPES.malformedJson,
    title: 'Malformed JSON',
    status: 400,
    detail: 'The request has a JSON content type but an empty body.',
  }),
  FST_ERR_CTP_BODY_TOO_LARGE: () => ({
    ...STATUS_PROBLEMS[413],
    status: 413,
    detail: 'The request body is larger than this service accepts.',
  }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => ({
    ...STATUS_PROBLEMS[415],
    status: 415,
    detail: 'Request bodies must be sent as Content-Type: application/json.',
  }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => ({
    ...STATUS_PROBLEMS[400],
    status: 400,
    detail: 'The Content-Length header does not match the body.',
  }),
};

/**
 * Every error leaves the service as an RFC 9457 problem document. Unexpected errors are logged
 * with their stack and answered with a generic 500 that reveals nothing of the internals.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemDetailsFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const { problem, headers } = this.toProblem(exception);
    const instance = request.url?.split('?')[0];
    void reply
      .status(problem.status)
      .headers({ ...headers, 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store' })
      .send({ ...problem, instance });
  }

  private toProblem(exception: unknown): {
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
    const fromFastify = fastifyError?.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
    if (fromFastify) {
      return { problem: fromFastify(), headers: {} };
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status < 500) {
        const known = STATUS_PROBLEMS[status] ?? { type: 'about:blank', title: exception.name };
        const detail = status === 404 ? 'No such resource.' : exception.message;
        return { problem: { ...known, status, detail }, headers: {} };
      }
    }
    const status = fastifyError?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const known = STATUS_PROBLEMS[status] ?? { type: 'about:blank', title: 'Bad request' };
      return { problem: { ...known, status }, headers: {} };
    }
    this.logger.error(
      exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    );
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

import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPES, ProblemDetails } from './problem-details';

/**
 * Problem documents for what Fastify and Node refuse before any route runs (ADR 0003, ADR 0019).
 * Each has a fixed title and detail: nothing of the request (path, headers, body) is echoed.
 */
export const FRAMEWORK_PROBLEMS = {
  malformedJson: {
    type: PROBLEM_TYPES.malformedJson,
    title: 'Malformed JSON',
    status: 400,
    detail: 'The request body is not valid JSON.',
  },
  emptyJson: {
    type: PROBLEM_TYPES.malformedJson,
    title: 'Malformed JSON',
    status: 400,
    detail: 'The request has a JSON content type but an empty body.',
  },
  jsonTooDeep: {
    type: PROBLEM_TYPES.malformedJson,
    title: 'Malformed JSON',
    status: 400,
    detail: 'The request body nests JSON deeper than this service accepts.',
  },
  bodyTooLarge: {
    type: PROBLEM_TYPES.payloadTooLarge,
    title: 'Request body too large',
    status: 413,
    detail: 'The request body is larger than this service accepts.',
  },
  unsupportedMediaType: {
    type: PROBLEM_TYPES.unsupportedMediaType,
    title: 'Unsupported media type',
    status: 415,
    detail: 'Request bodies must be sent as Content-Type: application/json.',
  },
  badContentLength: {
    type: PROBLEM_TYPES.malformedRequest,
    title: 'Malformed request',
    status: 400,
    detail: 'The Content-Length header does not match the body.',
  },
  badUrl: {
    type: PROBLEM_TYPES.malformedRequest,
    title: 'Malformed request',
    status: 400,
    detail: 'The request URL is not validly encoded.',
  },
  uriTooLong: {
    type: PROBLEM_TYPES.uriTooLong,
    title: 'URI too long',
    status: 414,
    detail: 'A segment of the request URL is longer than this service accepts.',
  },
  malformedRequest: {
    type: PROBLEM_TYPES.malformedRequest,
    title: 'Malformed request',
    status: 400,
    detail: 'The request is not valid HTTP.',
  },
  missingHost: {
    type: PROBLEM_TYPES.malformedRequest,
    title: 'Malformed request',
    status: 400,
    detail: 'An HTTP/1.1 request must carry a Host header.',
  },
  requestTimeout: {
    type: PROBLEM_TYPES.requestTimeout,
    title: 'Request timeout',
    status: 408,
    detail: 'The request did not arrive in time.',
  },
  headersTooLarge: {
    type: PROBLEM_TYPES.headersTooLarge,
    title: 'Request header fields too large',
    status: 431,
    detail: 'The request line and headers are larger than this service accepts.',
  },
} satisfies Record<string, ProblemDetails>;

/** Fastify's request errors (they carry a `code`), by code. */
export const FASTIFY_ERROR_PROBLEMS: Record<string, ProblemDetails> = {
  FST_ERR_CTP_INVALID_JSON_BODY: FRAMEWORK_PROBLEMS.malformedJson,
  FST_ERR_CTP_EMPTY_JSON_BODY: FRAMEWORK_PROBLEMS.emptyJson,
  SVC_ERR_JSON_TOO_DEEP: FRAMEWORK_PROBLEMS.jsonTooDeep,
  FST_ERR_CTP_BODY_TOO_LARGE: FRAMEWORK_PROBLEMS.bodyTooLarge,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: FRAMEWORK_PROBLEMS.unsupportedMediaType,
  FST_ERR_CTP_INVALID_TYPE: FRAMEWORK_PROBLEMS.unsupportedMediaType,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: FRAMEWORK_PROBLEMS.badContentLength,
  FST_ERR_BAD_URL: FRAMEWORK_PROBLEMS.badUrl,
  FST_ERR_MAX_PARAM_LENGTH: FRAMEWORK_PROBLEMS.uriTooLong,
};

/**
 * Node's HTTP parser errors (`clientError`: malformed request, headers too large, a request that
 * did not arrive within the timeouts), answered as a problem document on the raw socket, then
 * closed. Replaces Fastify's default handler, whose body is not a problem document.
 */
export function problemClientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) {
    return;
  }
  const problem =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? FRAMEWORK_PROBLEMS.requestTimeout
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? FRAMEWORK_PROBLEMS.headersTooLarge
        : FRAMEWORK_PROBLEMS.malformedRequest;
  // A request whose body did not arrive in time has a response object, not yet started.
  const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })
    ._httpMessage;
  if (socket.writable && !response?.headersSent) {
    const body = JSON.stringify(problem);
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Cache-Control: no-store\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

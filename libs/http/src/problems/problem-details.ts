import { HttpException } from '@nestjs/common';

/** RFC 9457 problem details. `type` is a stable URN per kind of error (ADR 0003). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

export interface FieldError {
  /** JSON-pointer-like dotted path of the offending field, such as `url` or `events.1`. */
  field: string;
  detail: string;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const problemType = (slug: string) => `urn:svc:problem:${slug}`;

export const PROBLEM_TYPES = {
  invalidRequest: problemType('invalid-request'),
  malformedJson: problemType('malformed-json'),
  malformedRequest: problemType('malformed-request'),
  duplicateHeader: problemType('duplicate-header'),
  requestTimeout: problemType('request-timeout'),
  uriTooLong: problemType('uri-too-long'),
  headersTooLarge: problemType('headers-too-large'),
  credentialsOutsideHeader: problemType('credentials-outside-header'),
  unauthenticated: problemType('unauthenticated'),
  insufficientScope: problemType('insufficient-scope'),
  notFound: problemType('not-found'),
  methodNotAllowed: problemType('method-not-allowed'),
  conflict: problemType('conflict'),
  payloadTooLarge: problemType('payload-too-large'),
  unsupportedMediaType: problemType('unsupported-media-type'),
  tooManyRequests: problemType('too-many-requests'),
  internal: problemType('internal-error'),
  unavailable: problemType('service-unavailable'),
} as const;

/** An HTTP error whose body is a problem document, with optional response headers. */
export class ProblemException extends HttpException {
  constructor(
    readonly problem: ProblemDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(problem, problem.status);
  }
}

export const problems = {
  invalidRequest(errors: FieldError[]): ProblemException {
    return new ProblemException({
      type: PROBLEM_TYPES.invalidRequest,
      title: 'The request is not valid',
      status: 400,
      detail: errors.map((error) => `${error.field}: ${error.detail}`).join('; '),
      errors,
    });
  },
  notFound(detail: string): ProblemException {
    return new ProblemException({
      type: PROBLEM_TYPES.notFound,
      title: 'Not found',
      status: 404,
      detail,
    });
  },
  conflict(detail: string): ProblemException {
    return new ProblemException({
      type: PROBLEM_TYPES.conflict,
      title: 'Conflict',
      status: 409,
      detail,
    });
  },
};

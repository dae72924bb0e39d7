import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE, ProblemDocument } from '@svc/http';

const problem = (status: number, description: string) =>
  ApiResponse({
    status,
    description,
    content: {
      [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/ProblemDocument' } },
    },
  });

/** The answers every authenticated route can give besides its own. */
export const ApiAuthenticatedProblems = (scope: string) =>
  applyDecorators(
    ApiBearerAuth('api_key'),
    problem(400, 'Invalid request, or a credential outside the Authorization header.'),
    problem(401, 'Missing, malformed, unknown or revoked credential (WWW-Authenticate: Bearer).'),
    problem(
      403,
      `The credential lacks the scope ${scope} (error="insufficient_scope"), or is a read-only portal session and the method is not GET.`,
    ),
  );

export const ApiProblem = problem;
export { ProblemDocument };

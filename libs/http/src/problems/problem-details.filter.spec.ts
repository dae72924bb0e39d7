import { ArgumentsHost } from '@nestjs/common';
import { createLogger } from '@svc/observability';
import { ProblemDetailsFilter } from './problem-details.filter';

function hostFor(request: Record<string, unknown>, reply: Record<string, jest.Mock>) {
  return {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }),
  } as unknown as ArgumentsHost;
}

describe('ProblemDetailsFilter', () => {
  it("logs an unexpected error with the app's own service name, the request id, message and stack", () => {
    const lines: string[] = [];
    const logger = createLogger('api', 'info', { write: (line: string) => void lines.push(line) });
    const reply = {
      status: jest.fn().mockReturnThis(),
      headers: jest.fn().mockReturnThis(),
      send: jest.fn().mockReturnThis(),
    };
    new ProblemDetailsFilter(logger).catch(
      new Error('database exploded'),
      hostFor(
        { id: 'req-42', url: '/v1/webhooks?x=1', routeOptions: { url: '/v1/webhooks' } },
        reply,
      ),
    );
    expect(reply.status).toHaveBeenCalledWith(500);
    const [line] = lines.map((text) => JSON.parse(text) as Record<string, any>);
    expect(line).toMatchObject({
      service: 'api',
      request_id: 'req-42',
      level: 'error',
      err: {
        message: 'database exploded',
        stack: expect.stringContaining('Error: database exploded'),
      },
    });
  });
});

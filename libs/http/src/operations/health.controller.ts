import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PublicRoute } from '../public-route.decorator';
import { READINESS_CHECKS, ReadinessCheck } from './readiness-check';

@ApiExcludeController()
@PublicRoute()
@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[]) {}

  /** Liveness: the process answers. Never touches dependencies, so a database outage does not restart pods. */
  @Get('healthz')
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<Record<string, unknown>> {
    const results = await Promise.all(
      this.checks.map(async (dependency) => {
        try {
          await dependency.check();
          return [dependency.name, { status: 'ok' }] as const;
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          return [dependency.name, { status: 'unavailable', reason }] as const;
        }
      }),
    );
    const ready = results.every(([, result]) => result.status === 'ok');
    void reply.status(ready ? 200 : 503);
    return { status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(results) };
  }
}

import fastifyStatic from '@fastify/static';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  builtConsoleDirectory,
  consoleSourceDirectory,
  PROBLEM_CONTENT_TYPE,
  PROBLEM_TYPES,
} from '@svc/http';
import type { FastifyInstance } from 'fastify';
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Where the pages' stylesheet is served (layout.ts links it). */
export const THEME_STYLESHEET_ROUTE = '/assets/theme.css';

/**
 * The console's shared stylesheet (ADR 0042), first found wins: as built (dist/console, the
 * image) or its source (apps/console/public, running from a checkout before a build).
 */
export function themeStylesheetCandidates(): string[] {
  return [
    join(builtConsoleDirectory(), 'theme.css'),
    join(consoleSourceDirectory(), 'public', 'theme.css'),
  ];
}

async function firstFile(candidates: readonly string[]): Promise<string | null> {
  for (const candidate of candidates) {
    const found = await stat(candidate).catch(() => null);
    if (found?.isFile()) {
      return candidate;
    }
  }
  return null;
}

/**
 * Serves the stylesheet at /assets/theme.css: text/css, revalidated by ETag (its name has no
 * hash), looked up per request so that a build made while the server runs is picked up. When
 * there is none, a 404 problem: the pages then show unstyled, and work the same.
 */
export async function registerThemeStylesheet(
  app: NestFastifyApplication,
  candidates: readonly string[] = themeStylesheetCandidates(),
): Promise<void> {
  await app.register(async (scope: FastifyInstance) => {
    await scope.register(fastifyStatic, { serve: false });
    scope.get(THEME_STYLESHEET_ROUTE, async (_request, reply) => {
      const file = await firstFile(candidates);
      if (!file) {
        return reply
          .code(404)
          .header('content-type', PROBLEM_CONTENT_TYPE)
          .header('cache-control', 'no-store')
          .send({
            type: PROBLEM_TYPES.notFound,
            title: 'Not found',
            status: 404,
            detail: 'This server has no stylesheet to serve.',
          });
      }
      return reply
        .header('cache-control', 'no-cache')
        .sendFile(basename(file), dirname(file), { cacheControl: false });
    });
  });
}

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The folder holding the nearest package.json above `start`: the repository when running from
 * sources (Jest), the image's /app when running from dist/, where there is none in between.
 */
export function packageRootAbove(start: string): string | null {
  for (let directory = start; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) {
      return directory;
    }
    if (dirname(directory) === directory) {
      return null;
    }
  }
}

/**
 * The console's built files, dist/console (ADR 0042): the API serves them, the auth app its
 * stylesheet. Found from this file, which runs from libs/http/src under Jest and from
 * dist/libs/http/src once compiled.
 */
export function builtConsoleDirectory(start: string = __dirname): string {
  return join(packageRootAbove(start) ?? start, 'dist', 'console');
}

/** The console's sources (apps/console), present only in a checkout of the repository. */
export function consoleSourceDirectory(start: string = __dirname): string {
  return join(packageRootAbove(start) ?? start, 'apps', 'console');
}

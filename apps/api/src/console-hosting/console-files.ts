import { stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Vite's hashed output: a new build writes new names, so these may be cached for good. */
export const HASHED_ASSETS_FOLDER = 'assets/';

/** Cache-Control of a console file: hashed assets forever, anything else revalidated. */
export function cacheControlFor(relativePath: string): string {
  if (relativePath.startsWith(HASHED_ASSETS_FOLDER)) {
    return 'public, max-age=31536000, immutable';
  }
  // index.html names the current hashed files: a stale copy would load a build that is gone.
  return relativePath === 'index.html' ? 'no-store' : 'no-cache';
}

/**
 * The file a request under /console/ names, relative to the console's folder: `''` for the
 * folder itself, or null when the path tries to leave the folder or reach something hidden
 * (`..` or `.` segments, encoded or not, empty segments, backslashes, NUL, dot files). Takes the
 * raw request path after `/console/` (still percent-encoded, query included), so that what the
 * router decoded or not makes no difference.
 */
export function consoleRelativePath(rawPath: string): string | null {
  const withoutQuery = rawPath.split('?')[0];
  let decoded: string;
  try {
    decoded = decodeURIComponent(withoutQuery);
  } catch {
    return null;
  }
  if (decoded === '') {
    return '';
  }
  if (/[\\\0]/.test(decoded)) {
    return null;
  }
  const segments = decoded.split('/');
  const refused = segments.some(
    (segment, index) =>
      segment.startsWith('.') || (segment === '' && index !== segments.length - 1),
  );
  return refused ? null : decoded;
}

/** Whether `relativePath` is a regular file in `root` (the path already checked). */
export async function isConsoleFile(root: string, relativePath: string): Promise<boolean> {
  if (relativePath === '' || relativePath.endsWith('/')) {
    return false;
  }
  try {
    return (await stat(join(root, relativePath))).isFile();
  } catch {
    return false;
  }
}

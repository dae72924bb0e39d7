import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * What the console's first page loads of JavaScript (ADR 0042's budget: 150 KB gzipped): the
 * module scripts and modulepreloads of index.html and, transitively, their static imports.
 * Dynamic `import()` is left out: it loads when a page needs it, not with the first one.
 */

/** The `src` of module scripts and the `href` of modulepreload links, as written in the HTML. */
export function htmlScriptUrls(html: string): string[] {
  const urls: string[] = [];
  for (const tag of html.match(/<(script|link)\b[^>]*>/gi) ?? []) {
    const attribute = (name: string) =>
      new RegExp(`\\b${name}\\s*=\\s*["']([^"']+)["']`, 'i').exec(tag)?.[1];
    if (/^<script/i.test(tag) && attribute('src')) {
      urls.push(attribute('src')!);
    } else if (/^<link/i.test(tag) && attribute('rel') === 'modulepreload' && attribute('href')) {
      urls.push(attribute('href')!);
    }
  }
  return urls;
}

/** The specifiers of a module's static `import … from '…'`, `import '…'` and `export … from '…'`. */
export function staticImportSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:^|[^\w$.])(?:import|export)\s*(?:[\w$*{}\s,]*?from\s*)?["']([^"']+)["']/g;
  for (const match of source.matchAll(pattern)) {
    specifiers.push(match[1]);
  }
  return specifiers;
}

export interface ScriptSize {
  file: string;
  bytes: number;
  gzipBytes: number;
}

/**
 * Every script the first page loads, from the built folder (`dist/console`, served at `base`),
 * with its raw and gzipped sizes. Only the console's own files: other URLs are not ours to load.
 */
export function firstPageScripts(builtFolder: string, base = '/console/'): ScriptSize[] {
  const html = readFileSync(join(builtFolder, 'index.html'), 'utf8');
  const seen = new Set<string>();
  const queue = htmlScriptUrls(html)
    .filter((url) => url.startsWith(base))
    .map((url) => url.slice(base.length));
  const sizes: ScriptSize[] = [];
  while (queue.length > 0) {
    const file = posix.normalize(queue.shift()!);
    if (seen.has(file)) {
      continue;
    }
    seen.add(file);
    const content = readFileSync(join(builtFolder, file));
    sizes.push({ file, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length });
    for (const specifier of staticImportSpecifiers(content.toString('utf8'))) {
      if (specifier.startsWith('.')) {
        queue.push(posix.join(posix.dirname(file), specifier));
      } else if (specifier.startsWith(base)) {
        queue.push(specifier.slice(base.length));
      }
    }
  }
  return sizes;
}

export const builtConsoleFolder = (root: string): string => join(root, 'dist', 'console');

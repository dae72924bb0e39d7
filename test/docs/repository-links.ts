import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { markdownLines, markdownLinks } from './markdown-blocks';
import { REPOSITORY_ROOT } from './typecheck-examples';

/**
 * Relative links of the repository's Markdown must name files or folders of the repository:
 * resolved from the Markdown file's folder (or from the repository root for /path, as GitHub
 * does), inside the repository, present, and not ignored by git (dist/, .data/ exist only
 * locally). http(s) and mailto links and pure #anchors are not checked; any other scheme is
 * reported, as it cannot be a file of the repository.
 */

export interface Finding {
  /** Repository-relative path of the Markdown file. */
  readonly file: string;
  readonly line: number;
  /** The link target or the mention, as written. */
  readonly text: string;
  readonly problem: string;
}

const EXTERNAL = /^(?:https?:|mailto:)/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function repositoryPath(absolute: string): string {
  return relative(REPOSITORY_ROOT, absolute).split(sep).join('/');
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Every relative link of `markdownFile` (absolute path; its text is read unless given) that is not
 * a file or folder of the repository.
 */
export function brokenLinks(
  markdownFile: string,
  markdown = readFileSync(markdownFile, 'utf8'),
): Finding[] {
  const file = repositoryPath(markdownFile);
  const findings: Finding[] = [];
  const present: { finding: Finding; path: string }[] = [];
  for (const { target, line } of markdownLinks(markdown)) {
    const report = (problem: string) => findings.push({ file, line, text: target, problem });
    if (EXTERNAL.test(target) || target.startsWith('//') || target.startsWith('#')) continue;
    if (target === '') {
      report('empty link target');
      continue;
    }
    if (SCHEME.test(target)) {
      report('not a relative link (only http, https and mailto links may leave the repository)');
      continue;
    }
    const path = decodePath(target.replace(/[?#].*$/s, ''));
    const absolute = path.startsWith('/')
      ? join(REPOSITORY_ROOT, path)
      : resolve(dirname(markdownFile), path);
    const inside = relative(REPOSITORY_ROOT, absolute);
    if (inside.startsWith('..') || isAbsolute(inside)) {
      report(`outside the repository (${absolute})`);
    } else if (!existsSync(absolute)) {
      report(`no such file or folder: ${repositoryPath(absolute) || '.'}`);
    } else if (inside !== '') {
      present.push({ finding: { file, line, text: target, problem: '' }, path: inside });
    }
  }
  const ignored = gitIgnored(present.map(({ path }) => path));
  for (const { finding, path } of present) {
    if (ignored.has(path)) {
      findings.push({ ...finding, problem: `ignored by git, not in the repository: ${path}` });
    }
  }
  return findings.sort((a, b) => a.line - b.line);
}

/** Which of these repository-relative paths git ignores (none if git cannot tell). */
function gitIgnored(paths: readonly string[]): Set<string> {
  if (paths.length === 0) return new Set();
  const answer = spawnSync('git', ['check-ignore', '--stdin', '-z'], {
    cwd: REPOSITORY_ROOT,
    input: paths.join('\0') + '\0',
    encoding: 'utf8',
  });
  // 0: some are ignored, 1: none is; anything else (no git, not a checkout): cannot tell.
  if (answer.status !== 0) return new Set();
  return new Set(answer.stdout.split('\0').filter((path) => path !== ''));
}

/** Every mention of `text` in `markdownFile` (absolute path), code included, each on its own. */
export function mentions(
  markdownFile: string,
  text: string,
  markdown = readFileSync(markdownFile, 'utf8'),
): Finding[] {
  const file = repositoryPath(markdownFile);
  return markdownLines(markdown).flatMap((content, index) => {
    const found: Finding[] = [];
    for (let at = content.indexOf(text); at >= 0; at = content.indexOf(text, at + text.length)) {
      const mention = /^[^\s`'"<>()[\]]*/.exec(content.slice(at))![0];
      found.push({ file, line: index + 1, text: mention, problem: `mentions ${text}` });
    }
    return found;
  });
}

export function formatFindings(findings: readonly Finding[]): string {
  return findings
    .map(({ file, line, text, problem }) => `${file}:${line}: ${text}\n    ${problem}`)
    .join('\n');
}

/**
 * The Markdown files besides README.md whose links are checked: docs/ and deploy/ (all levels),
 * apps/<app>/README.md and test/bench/README.md; repository-relative, sorted.
 */
export function otherMarkdownFiles(): string[] {
  const underFolder = (folder: string) =>
    readdirSync(join(REPOSITORY_ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.toLowerCase().endsWith('.md'))
      .map((path) => `${folder}/${path.split(sep).join('/')}`);
  const appReadmes = readdirSync(join(REPOSITORY_ROOT, 'apps'))
    .map((app) => `apps/${app}/README.md`)
    .filter((path) => existsSync(join(REPOSITORY_ROOT, path)));
  return [
    ...underFolder('docs'),
    ...underFolder('deploy'),
    ...appReadmes,
    'test/bench/README.md',
  ].sort();
}

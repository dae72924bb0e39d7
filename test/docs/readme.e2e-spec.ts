import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fencedBlocks } from './markdown-blocks';
import {
  brokenLinks,
  Finding,
  formatFindings,
  mentions,
  otherMarkdownFiles,
} from './repository-links';
import {
  formatDiagnostics,
  REPOSITORY_ROOT,
  TypeScriptExample,
  typeCheckExamples,
} from './typecheck-examples';

/**
 * Keeps README.md and the guides in docs/ honest: their TypeScript examples type-check against the
 * repository's code, and their links (and those of the other Markdown files) name files of the
 * repository. No services needed; the type-check is one ts.Program for all examples.
 */

const README = join(REPOSITORY_ROOT, 'README.md');

/** The README and the guides it sends a reader to (docs/*.md; not the records under docs/adr). */
function guides(): string[] {
  const docs = readdirSync(join(REPOSITORY_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

function typeScriptExamples(markdownFile: string, source: string): TypeScriptExample[] {
  return fencedBlocks(readFileSync(markdownFile, 'utf8'))
    .filter(({ language }) => ['ts', 'typescript'].includes(language.toLowerCase()))
    .map(({ contentLine, content }) => ({ source, line: contentLine, code: content }));
}

function expectNoFindings(findings: readonly Finding[], what: string): void {
  if (findings.length > 0) {
    throw new Error(`${findings.length} ${what}:\n${formatFindings(findings)}`);
  }
}

describe('README.md and the guides in docs/', () => {
  describe('TypeScript examples', () => {
    it('every ```ts and ```typescript block type-checks against the repository', () => {
      const examples = guides().flatMap((guide) =>
        typeScriptExamples(join(REPOSITORY_ROOT, guide), guide),
      );
      // Three today, in docs/api.md ("Publishing an event", "Operational events", "Replay
      // protection"): finding none means the extraction broke.
      expect(examples.length).toBeGreaterThanOrEqual(3);

      const { failures, globalDiagnostics } = typeCheckExamples(examples);

      if (globalDiagnostics.length > 0) {
        throw new Error(`The compiler setup is broken:\n${formatDiagnostics(globalDiagnostics)}`);
      }
      if (failures.length > 0) {
        const messages = failures.map(({ message }) => message).join('\n\n');
        throw new Error(`${failures.length} example(s) do not type-check:\n\n${messages}`);
      }
    });

    it('the checker reports a wrong example (newEventEnvelope(42))', () => {
      const wrong: TypeScriptExample = {
        source: 'a wrong example',
        line: 10,
        code: [
          "import { newEventEnvelope } from '@svc/event-publisher';",
          '',
          "const event = newEventEnvelope(42, 'alert.created', {});",
        ].join('\n'),
      };

      const { failures } = typeCheckExamples([wrong]);

      expect(failures).toHaveLength(1);
      const [diagnostic] = failures[0].diagnostics;
      expect(diagnostic.code).toBe(2345); // Argument of type 'number' is not assignable...
      // Line numbers are the source's: the call is on the example's third line.
      const position = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start!);
      expect(position.line + 1).toBe(12);
      expect(failures[0].message).toContain('a wrong example');
      expect(failures[0].message).toContain('starting at line 10');
    });

    it('the checker accepts top-level await and unused names in a block without imports', () => {
      const { failures, globalDiagnostics } = typeCheckExamples([
        { source: 'a script', line: 1, code: 'const answer: number = await Promise.resolve(42);' },
      ]);

      expect(globalDiagnostics).toEqual([]);
      expect(failures.map(({ message }) => message)).toEqual([]);
    });
  });

  it('links only to files and folders of the repository', () => {
    expectNoFindings(brokenLinks(README), 'link(s) of README.md name no file of the repository');
  });

  it('do not mention ../shared (not in the repository)', () => {
    const found = guides().flatMap((guide) => mentions(join(REPOSITORY_ROOT, guide), '../shared'));
    expectNoFindings(found, 'mention(s) of ../shared');
  });

  it('the link check reports missing files, links out of the repository and ../shared', () => {
    const markdown = [
      '# Title',
      '[ok](docs/adr) [ok too](libs/signing/src/signature.ts#L1) [web](https://example.com)',
      '[anchor](#title) `[in code](nowhere.md)` [missing](docs/nowhere.md)',
      '```md',
      '[in a fence](nowhere.md)',
      '```',
      'See [the spec](../shared/spec/service-api.md) and `../shared/DESIGN.md`.',
      '[built](dist) [ref]: nowhere-either.md',
      '[ref]: ./also-nowhere.md',
    ].join('\n');

    const links = brokenLinks(README, markdown).map(({ line, text }) => `${line} ${text}`);
    const shared = mentions(README, '../shared', markdown).map(
      ({ line, text }) => `${line} ${text}`,
    );

    expect(links).toEqual([
      '3 docs/nowhere.md',
      '7 ../shared/spec/service-api.md',
      '8 dist',
      '9 ./also-nowhere.md',
    ]);
    expect(shared).toEqual(['7 ../shared/spec/service-api.md', '7 ../shared/DESIGN.md']);
  });
});

describe('the other Markdown files link only to files and folders of the repository', () => {
  it.each(otherMarkdownFiles())('%s', (file) => {
    expectNoFindings(
      brokenLinks(join(REPOSITORY_ROOT, file)),
      `link(s) of ${file} name no file of the repository`,
    );
  });
});

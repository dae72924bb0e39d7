import { CONCERNS, Concern, LOCAL_STACK_CONCERN, READERS, Setting } from '@svc/config';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where the reference is written, from the repository root. */
export const CONFIGURATION_REFERENCE = 'docs/configuration.md';

export const REGENERATE = 'npm run docs:config';

const INTRO = `Environment variables, validated at start-up: every bad value is reported by name and the
process exits with code 78. Each app reads only its own sections of the configuration
(\`libs/config/src/apps.ts\`), so a bad value of a setting an app does not read does not stop it.
\`npm start\` runs the three apps in one process and reads what they read, and the \`LOCAL_*\`
variables at the end. The schemas are in \`libs/config/src/settings/\`, one file per concern.`;

const HEADER = ['variable', 'default', 'values', 'read by', 'meaning'];

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** A Markdown table with its columns aligned, as prettier writes it. */
function table(rows: string[][]): string[] {
  const widths = HEADER.map((_, column) =>
    Math.max(3, ...[HEADER, ...rows].map((row) => row[column].length)),
  );
  const line = (row: string[]) =>
    `| ${row.map((text, column) => text.padEnd(widths[column])).join(' | ')} |`;
  return [line(HEADER), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}

/** The apps (and tools) whose loaders include a section with this variable. */
function readersOf(name: string): string {
  return READERS.filter(({ sections }) => sections.some((part) => name in part.variables))
    .map(({ reader }) => reader)
    .join(', ');
}

function concernSection(concern: Concern, listed: Set<string>): string[] {
  const rows: string[][] = [];
  for (const part of concern.sections) {
    for (const [name, variable] of Object.entries<Setting>(part.variables)) {
      if (listed.has(name)) continue;
      listed.add(name);
      const { doc } = variable;
      rows.push([`\`${name}\``, doc.default, doc.format, readersOf(name), doc.meaning].map(cell));
    }
  }
  return [
    `## ${concern.title}`,
    '',
    `Schema: \`libs/config/src/settings/${concern.file}\`.`,
    '',
    ...table(rows),
    '',
  ];
}

/** docs/configuration.md, from the schemas of libs/config (every setting of every app). */
export function configurationReference(): string {
  const listed = new Set<string>();
  return [
    '# Configuration',
    '',
    `<!-- Generated from libs/config/src/settings by \`${REGENERATE}\`: do not edit by hand. -->`,
    '',
    INTRO,
    '',
    ...[...CONCERNS, LOCAL_STACK_CONCERN].flatMap((concern) => concernSection(concern, listed)),
  ].join('\n');
}

/** The repository root: the compiled script runs from dist/tools/docs, the source from tools/docs. */
export function repositoryRoot(start: string = __dirname): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    if (dirname(dir) === dir) {
      throw new Error(`no package.json above ${start}`);
    }
    dir = dirname(dir);
  }
  return dir;
}

import { lintInMemory } from './lint-in-memory';

describe('lint: no `as unknown as` in product code', () => {
  const SOURCE = [
    'const value: unknown = JSON.parse("1");',
    'export const laundered = value as unknown as string;',
    'export const narrowed = typeof value === "string" ? value : String(value);',
    '',
  ].join('\n');

  it('refuses the double cast in apps, libs and tools, and allows it in tests', () => {
    const files = [
      'libs/event-store/src/lint-probe.ts',
      'apps/auth/src/lint-probe.ts',
      'tools/local-stack/lint-probe.ts',
      'libs/event-store/src/lint-probe.spec.ts',
      'test/api/lint-probe.e2e-spec.ts',
    ];
    const found = lintInMemory(files.map((filePath) => ({ filePath, source: SOURCE })));
    const casts = found.map((findings) =>
      findings.filter((f) => f.ruleId === 'no-restricted-syntax').map((f) => f.line),
    );
    expect(Object.fromEntries(files.map((file, i) => [file, casts[i]]))).toEqual({
      'libs/event-store/src/lint-probe.ts': [2],
      'apps/auth/src/lint-probe.ts': [2],
      'tools/local-stack/lint-probe.ts': [2],
      'libs/event-store/src/lint-probe.spec.ts': [],
      'test/api/lint-probe.e2e-spec.ts': [],
    });
  }, 60_000);
});

import { resolve } from 'node:path';
import ts from 'typescript';

/**
 * Type-checks TypeScript examples taken from the documentation, all in one ts.Program, with the
 * compiler options of the repository's tsconfig.json (so `@svc/*` resolves as it does for the
 * code) except: no emit, and unused locals and parameters allowed (examples declare things to
 * show them).
 *
 * Each example is a module at a virtual path inside the repository (test/docs/__readme_example_N.ts,
 * served from memory, never written): `export {};` is appended when it has no import or export.
 * Its code is preceded by blank lines so that the diagnostics' line numbers are the Markdown
 * file's. Examples may use top-level await: under `module: node20` this repository's .ts files are
 * CommonJS, where TypeScript refuses top-level await (TS1309) but still types the awaited
 * expressions; that one diagnostic is dropped. (Making the file ESM instead, .mts, would break the
 * `@svc/*` aliases, which point at folders: ES module resolution does not look for index files.)
 */

export const REPOSITORY_ROOT = resolve(__dirname, '../..');

export interface TypeScriptExample {
  /** Where the example comes from, for messages: 'README.md'. */
  readonly source: string;
  /** 1-based line of the example's first code line in `source`. */
  readonly line: number;
  readonly code: string;
}

export interface ExampleDiagnostics {
  readonly example: TypeScriptExample;
  readonly diagnostics: readonly ts.Diagnostic[];
  /** A header naming the source and line, then the diagnostics with their code context. */
  readonly message: string;
}

export interface TypeCheckResult {
  /** Only the examples with diagnostics. */
  readonly failures: readonly ExampleDiagnostics[];
  /** Problems with the compiler options or the global scope (would affect every example). */
  readonly globalDiagnostics: readonly ts.Diagnostic[];
}

/** "The current file is a CommonJS module and cannot use 'await' at the top level." */
const TOP_LEVEL_AWAIT_IN_COMMONJS = 1309;

const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (fileName) => fileName,
  getCurrentDirectory: () => REPOSITORY_ROOT,
  getNewLine: () => '\n',
};

let compilerOptions: ts.CompilerOptions | undefined;

function exampleCompilerOptions(): ts.CompilerOptions {
  if (compilerOptions === undefined) {
    const configPath = resolve(REPOSITORY_ROOT, 'tsconfig.json');
    const { config, error } = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
    if (error !== undefined) throw new Error(ts.formatDiagnostics([error], formatHost));
    const parsed = ts.parseJsonConfigFileContent(config, ts.sys, REPOSITORY_ROOT, {}, configPath);
    if (parsed.errors.length > 0) throw new Error(ts.formatDiagnostics(parsed.errors, formatHost));
    const options: ts.CompilerOptions = {
      ...parsed.options,
      noEmit: true,
      noUnusedLocals: false,
      noUnusedParameters: false,
      incremental: false,
    };
    delete options.tsBuildInfoFile;
    compilerOptions = options;
  }
  return compilerOptions;
}

/** Source files read from disk, kept across programs (the negative tests make their own). */
const diskSourceFiles = new Map<string, ts.SourceFile>();

function asModule(code: string): string {
  const probe = ts.createSourceFile('probe.ts', code, ts.ScriptTarget.Latest, false);
  return ts.isExternalModule(probe) ? code : `${code}\nexport {};\n`;
}

export function typeCheckExamples(examples: readonly TypeScriptExample[]): TypeCheckResult {
  const options = exampleCompilerOptions();
  const virtualFiles = new Map<string, { example: TypeScriptExample; text: string }>();
  examples.forEach((example, index) => {
    const fileName = resolve(REPOSITORY_ROOT, `test/docs/__readme_example_${index + 1}.ts`);
    const text = '\n'.repeat(Math.max(example.line - 1, 0)) + asModule(example.code);
    virtualFiles.set(fileName, { example, text });
  });

  const host = ts.createCompilerHost(options, true);
  const readFromDisk = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getCurrentDirectory = () => REPOSITORY_ROOT;
  host.fileExists = (fileName) => virtualFiles.has(fileName) || fileExists(fileName);
  host.readFile = (fileName) => virtualFiles.get(fileName)?.text ?? readFile(fileName);
  host.writeFile = () => {
    throw new Error('examples are only type-checked, never emitted');
  };
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const virtual = virtualFiles.get(fileName);
    if (virtual !== undefined) {
      return ts.createSourceFile(fileName, virtual.text, languageVersion, true);
    }
    const version =
      typeof languageVersion === 'object' ? JSON.stringify(languageVersion) : languageVersion;
    const key = `${fileName}\0${version}`;
    let sourceFile = diskSourceFiles.get(key);
    if (sourceFile === undefined) {
      sourceFile = readFromDisk(fileName, languageVersion, onError, shouldCreate);
      if (sourceFile !== undefined) diskSourceFiles.set(key, sourceFile);
    }
    return sourceFile;
  };

  const program = ts.createProgram([...virtualFiles.keys()], options, host);
  const globalDiagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  const failures: ExampleDiagnostics[] = [];
  for (const [fileName, { example }] of virtualFiles) {
    const sourceFile = program.getSourceFile(fileName);
    if (sourceFile === undefined) throw new Error(`${fileName} is not in the program`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(sourceFile),
      ...program.getSemanticDiagnostics(sourceFile),
    ].filter((diagnostic) => diagnostic.code !== TOP_LEVEL_AWAIT_IN_COMMONJS);
    if (diagnostics.length > 0) {
      failures.push({ example, diagnostics, message: formatFailure(example, diagnostics) });
    }
  }
  return { failures, globalDiagnostics };
}

function formatFailure(example: TypeScriptExample, diagnostics: readonly ts.Diagnostic[]): string {
  const header =
    `${example.source}: the TypeScript example starting at line ${example.line} ` +
    `(line numbers below are ${example.source}'s)`;
  return `${header}\n${ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost)}`;
}

export function formatDiagnostics(diagnostics: readonly ts.Diagnostic[]): string {
  return ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost);
}

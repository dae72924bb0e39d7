import { runCli } from '../../apps/cli/src/cli';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, when it is JSON. */
  json: any;
}

/** Runs the real admin CLI in-process, with its output captured and its input given. */
export async function runSvc(
  argv: string[],
  options: {
    env: NodeJS.ProcessEnv;
    cwd?: string;
    stdin?: string;
    /** For long-running commands (listen): resolves when the command should stop. */
    untilStopped?: Promise<void>;
  },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { NODE_ENV: 'test', ...options.env },
    cwd: options.cwd ?? process.cwd(),
    stdin: () => Promise.resolve(options.stdin ?? ''),
    untilStopped: () => options.untilStopped ?? Promise.resolve(),
  });
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

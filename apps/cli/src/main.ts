import 'reflect-metadata';
import { runCli } from './cli';

async function readStandardInput(): Promise<string> {
  if (process.stdin.isTTY) {
    process.stderr.write('(type it, then press Enter and Ctrl-D)\n');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Installed only when a long-running command asks, so Ctrl-C ends every other command at once. */
function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

void runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: readStandardInput,
  env: process.env,
  cwd: process.cwd(),
  untilStopped,
}).then((code) => {
  process.exitCode = code;
});

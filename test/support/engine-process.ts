import { jetstreamManager } from '@nats-io/jetstream';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import type { DeliveryStack } from './delivery-harness';
import { TEST_NATS_URL } from './test-environment';
import { waitFor } from './wait-for';

const ROOT = resolve(__dirname, '..', '..');
const ENGINE_MAIN = resolve(ROOT, 'dist/apps/delivery/src/main.js');

/** Builds dist/ (incrementally) so the engine can run as a real process of its own. */
export function buildOnce(): void {
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit', timeout: 180_000 });
}

export interface EngineProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/**
 * The delivery engine as its own OS process (`node dist/apps/delivery/src/main.js`), configured
 * like the stack's in-process apps, so a test can kill -9 it or send it SIGTERM.
 */
export async function spawnEngineProcess(
  stack: DeliveryStack,
  overrides: NodeJS.ProcessEnv = {},
): Promise<EngineProcess> {
  let output = '';
  const child = spawn(process.execPath, [ENGINE_MAIN], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      DELIVERY_PORT: '0',
      DATABASE_URL: stack.databaseUrl,
      NATS_URL: TEST_NATS_URL,
      WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8,::1/128',
      ...stack.env,
      ...overrides,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  await waitFor(
    () => Promise.resolve(output.includes('consuming events') || child.exitCode !== null),
    {
      timeoutMs: 20_000,
      what: 'the engine process to consume',
    },
  );
  if (child.exitCode !== null) {
    throw new Error(`the engine process exited at start:\n${output}`);
  }
  return { child, output: () => output, exited };
}

/** The consumer's count of messages handed out but not yet acknowledged. */
export async function ackPending(stack: DeliveryStack): Promise<number> {
  const jsm = await jetstreamManager(stack.nats);
  return (await jsm.consumers.info(stack.settings.eventsStream, stack.settings.consumer))
    .num_ack_pending;
}

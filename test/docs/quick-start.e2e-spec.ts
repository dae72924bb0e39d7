import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildOnce } from '../support/engine-process';
import { freePort } from '../support/free-port';
import {
  connectTestNats,
  deleteStreams,
  JetStreamSettings,
  uniqueJetStreamSettings,
} from '../support/jetstream-harness';
import { createTestDatabase } from '../support/test-database';
import { TEST_NATS_URL } from '../support/test-environment';
import { waitFor } from '../support/wait-for';
import { fencedBlocks, markdownLines } from './markdown-blocks';

const ROOT = resolve(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The commands of the README's quick start, as a person copies them: comments and blanks out. */
function quickStartCommands(): string[] {
  const heading = markdownLines(README).findIndex((line) => line.startsWith('## Quick start')) + 1;
  const block = fencedBlocks(README).find((candidate) => candidate.fenceLine > heading);
  if (heading === 0 || !block) {
    throw new Error('README.md has no "## Quick start" section with a code block');
  }
  return block.content
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

interface Shell {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs one line in bash, in its own process group so that Ctrl-C can be sent as a terminal does. */
function shell(line: string, env: NodeJS.ProcessEnv): Shell {
  const child = spawn('bash', ['-c', line], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, output: () => output, exited };
}

/** Ctrl-C: SIGINT to the whole process group, as a terminal sends it. */
function interrupt(shell: Shell): Promise<number | null> {
  const { child } = shell;
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGINT');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') {
        throw error;
      }
    }
  }
  return shell.exited;
}

async function run(line: string, env: NodeJS.ProcessEnv): Promise<string> {
  const command = shell(line, env);
  const code = await command.exited;
  if (code !== 0) {
    throw new Error(`\`${line}\` exited with ${code}:\n${command.output()}`);
  }
  return command.output();
}

describe('the README quick start, run as written against the real stack', () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataDir: string;
  let nats: NatsConnection;
  let jetstream: JetStreamSettings;
  let stack: Shell | undefined;
  let listener: Shell | undefined;
  let apiUrl: string;
  /** What a person at a terminal has: no DATABASE_URL, nothing but what `npm start` wrote. */
  let personEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    buildOnce();
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'svc-quick-start-'));
    nats = await connectTestNats();
    jetstream = uniqueJetStreamSettings();
    const [api, auth, delivery] = [await freePort(), await freePort(), await freePort()];
    apiUrl = `http://127.0.0.1:${api}`;
    personEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOCAL_DATA_DIR: dataDir };
    stack = shell('npm start', {
      ...personEnv,
      DATABASE_URL: database.url,
      NATS_URL: TEST_NATS_URL,
      HOST: '127.0.0.1',
      API_PORT: String(api),
      AUTH_PORT: String(auth),
      DELIVERY_PORT: String(delivery),
      LOG_LEVEL: 'warn',
      NATS_SUBJECT_ROOT: jetstream.subjectRoot,
      EVENTS_STREAM: jetstream.eventsStream,
      DEAD_LETTER_STREAM: jetstream.deadLetterStream,
      DELIVERY_CONSUMER: jetstream.consumer,
    });
    await waitFor(
      () =>
        Promise.resolve(
          stack?.output().includes('svc webhooks is running') || stack?.child.exitCode !== null,
        ),
      { timeoutMs: 60_000, what: '`npm start` to print its banner' },
    );
    if (stack.child.exitCode !== null) {
      throw new Error(`npm start exited:\n${stack.output()}`);
    }
  }, 120_000);

  afterAll(async () => {
    if (listener) {
      await interrupt(listener);
    }
    if (stack) {
      await interrupt(stack);
    }
    await deleteStreams(nats, jetstream);
    await nats.close();
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('ends, in at most five commands, with a verified delivery and its recorded attempt', async () => {
    const commands = quickStartCommands();
    expect(commands.length).toBeLessThanOrEqual(5);
    const known: Record<string, string> = { 'http://localhost:8080': apiUrl };
    const fill = (line: string) =>
      Object.entries(known).reduce((filled, [shown, real]) => filled.split(shown).join(real), line);
    const [tenantLine, keyLine, listenLine, publishLine, attemptsLine] = commands;

    const tenantOutput = await run(fill(tenantLine), personEnv);
    known['ten_...'] = /created tenant (ten_[0-9a-z]+)/.exec(tenantOutput)?.[1] ?? 'no tenant id';

    const keyOutput = await run(fill(keyLine), personEnv);
    known['svc_live_...'] = /(svc_live_[A-Za-z0-9]{32})/.exec(keyOutput)?.[1] ?? 'no key';

    expect(listenLine).toMatch(/ listen /);
    listener = shell(fill(listenLine), personEnv);
    const endpointId = await waitFor(
      () =>
        Promise.resolve(/registered endpoint (wh_[0-9a-z]+)/.exec(listener?.output() ?? '')?.[1]),
      {
        timeoutMs: 20_000,
        what: `the listener to register itself; it printed:\n${listener.output()}`,
      },
    );
    known['wh_...'] = endpointId;

    const publishOutput = await run(fill(publishLine), personEnv);
    const eventId = /published (evt_[0-9a-z]+)/.exec(publishOutput)?.[1];
    expect(eventId).toBeDefined();
    const deliveryLine = await waitFor(
      () =>
        Promise.resolve(
          listener
            ?.output()
            .split('\n')
            .find((line) => line.includes(eventId as string)),
        ),
      { timeoutMs: 20_000, what: 'the listener to print the delivery' },
    );
    // The endpoint's first delivery; both schemes by default: the HMAC with the listener's
    // secret, Ed25519 with the API's JWKS.
    expect(deliveryLine).toMatch(
      /alert\.created {2}attempt 1 {2}seq 1 {2}signature ok \(hmac-sha256, ed25519\) {2}del_/,
    );

    // The listener prints the delivery when it arrives; the engine records the attempt once the
    // answer is back, a moment later (longer on a loaded machine): the command is run again
    // until the attempt is there, as a person would.
    type Attempts = {
      data: { attempt: number; outcome: string; status_code: number; event_id?: string }[];
    };
    const attempts = await waitFor(
      async () => {
        const listed = JSON.parse(await run(fill(attemptsLine), personEnv)) as Attempts;
        return listed.data.length > 0 ? listed : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 500, what: 'the attempt in the log' },
    );
    expect(attempts.data).toHaveLength(1);
    expect(attempts.data[0]).toMatchObject({ attempt: 1, outcome: 'succeeded', status_code: 200 });

    // Ctrl-C in the listener's terminal removes the endpoint it registered (npm itself may end
    // by the signal, so what counts is what the listener printed).
    await interrupt(listener);
    await waitFor(
      () => Promise.resolve(listener?.output().includes(`removed endpoint ${endpointId}`)),
      {
        timeoutMs: 10_000,
        what: `the listener to remove its endpoint; it printed:\n${listener.output()}`,
      },
    );
    const jsm = await jetstreamManager(nats);
    expect((await jsm.streams.info(jetstream.eventsStream)).state.messages).toBe(1);
  }, 90_000);
});

/**
 * The bench's webhook receiver, run as a process of its own (so neither the bench nor the engine
 * pays for it): one HTTPS server per endpoint port, certificate from the test CA, answering 200
 * with an empty body at once unless told otherwise per port (another status, a delay, one longer
 * than the engine's timeout). It counts requests and, per phase, the delay from the event's
 * created_at to the moment the whole request had arrived. Driven by its parent over IPC
 * (receiver-process.ts); it exits when the parent goes away.
 */
import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, Server } from 'node:https';
import { resolve } from 'node:path';
import { findRepoRoot } from './bench-settings';
import type {
  LatencyWindow,
  PortBehaviour,
  PortSequences,
  ReceiverCommand,
  ReceiverReply,
  ReceiverStats,
} from './receiver-protocol';
import { percentile } from './stats';

const CREATED_AT = '"created_at":"';
const ATTEMPT_HEADER = 'x-svc-delivery-attempt';
const SEQUENCE_HEADER = 'x-svc-sequence';
const HEALTHY: PortBehaviour = { status: 200, delayMs: 0, counted: true };

const tls = resolve(findRepoRoot(), 'test/fixtures/tls');
const certificate = {
  cert: readFileSync(resolve(tls, 'server.pem')),
  key: readFileSync(resolve(tls, 'server-key.pem')),
};

let phase = 'idle';
let count = 0;
let retries = 0;
let uncounted = 0;
/** By port index; the ports not in it are healthy. */
let behaviours = new Map<number, PortBehaviour>();
let firstAt = 0;
let lastAt = 0;
let latencies: number[] = [];
let expected: number | null = null;
/** Latencies by the start of their arrival window, when the phase asked for windows. */
let windowMs: number | undefined;
let windows = new Map<number, number[]>();
/** By port index, for the ports that record sequences; `inFlight` is the requests held now. */
let sequences = new Map<number, PortSequences & { inFlight: number }>();

const send = (reply: ReceiverReply) => process.send?.(reply);

function createdAtOf(body: string): number {
  const start = body.indexOf(CREATED_AT);
  if (start < 0) {
    return NaN;
  }
  const from = start + CREATED_AT.length;
  return Date.parse(body.slice(from, body.indexOf('"', from)));
}

function arrived(body: string): void {
  const now = Date.now();
  count += 1;
  if (count === 1) {
    firstAt = now;
  }
  lastAt = now;
  const createdAt = createdAtOf(body);
  if (!Number.isNaN(createdAt)) {
    latencies.push(now - createdAt);
    if (windowMs !== undefined) {
      const start = Math.floor(now / windowMs) * windowMs;
      let window = windows.get(start);
      if (!window) {
        window = [];
        windows.set(start, window);
      }
      window.push(now - createdAt);
    }
  }
  if (expected !== null && count >= expected) {
    expected = null;
    send({ type: 'reached', count, at: now });
  }
}

/**
 * Notes the request's X-SVC-Sequence as its headers arrive, and holds it as in flight until its
 * answer is handed to the socket ('finish'; 'close' if the client went first): the engine cannot
 * have read the answer before then, so a FIFO endpoint's next request must arrive after it.
 */
function noteSequence(index: number, request: IncomingMessage, response: ServerResponse): void {
  let port = sequences.get(index);
  if (!port) {
    port = { arrived: [], unnumbered: 0, maxInFlight: 0, inFlight: 0 };
    sequences.set(index, port);
  }
  const header = request.headers[SEQUENCE_HEADER];
  const sequence =
    typeof header === 'string' && /^[1-9][0-9]*$/.test(header) ? Number(header) : NaN;
  if (Number.isSafeInteger(sequence)) {
    port.arrived.push(sequence);
  } else {
    port.unnumbered += 1;
  }
  port.inFlight += 1;
  port.maxInFlight = Math.max(port.maxInFlight, port.inFlight);
  // A phase started meanwhile has a fresh record: the request leaves the one it entered.
  const entered = port;
  let left = false;
  const leave = () => {
    if (!left) {
      left = true;
      entered.inFlight -= 1;
    }
  };
  response.once('finish', leave);
  response.once('close', leave);
}

function answer(index: number, request: IncomingMessage, response: ServerResponse): void {
  if (behaviours.get(index)?.recordSequences) {
    noteSequence(index, request, response);
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const behaviour = behaviours.get(index) ?? HEALTHY;
    if (!behaviour.counted) {
      uncounted += 1;
    } else if ((request.headers[ATTEMPT_HEADER] ?? '1') !== '1') {
      retries += 1;
    } else {
      arrived(Buffer.concat(chunks).toString('latin1'));
    }
    const send = () => {
      if (!response.destroyed) {
        response.writeHead(behaviour.status, { 'content-length': '0' });
        response.end();
      }
    };
    if (behaviour.delayMs <= 0) {
      send();
      return;
    }
    // A client that gave up (the engine's timeout) closes the connection: no answer is due then.
    const timer = setTimeout(send, behaviour.delayMs);
    response.once('close', () => clearTimeout(timer));
  });
}

function windowStats(): LatencyWindow[] {
  return [...windows.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, values]) => {
      const sorted = Float64Array.from(values).sort();
      return {
        start,
        count: sorted.length,
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        max: sorted[sorted.length - 1],
      };
    });
}

function stats(): ReceiverStats {
  const sorted = Float64Array.from(latencies).sort();
  return {
    phase,
    count,
    retries,
    uncounted,
    firstAt,
    lastAt,
    latencyMs: {
      samples: sorted.length,
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      max: sorted.length > 0 ? sorted[sorted.length - 1] : NaN,
    },
    ...(windowMs !== undefined ? { windows: windowStats() } : {}),
    ...(sequences.size > 0
      ? {
          sequences: Object.fromEntries(
            [...sequences.entries()].map(([index, { arrived, unnumbered, maxInFlight }]) => [
              index,
              { arrived, unnumbered, maxInFlight },
            ]),
          ),
        }
      : {}),
  };
}

process.on('message', (command: ReceiverCommand) => {
  switch (command.type) {
    case 'phase':
      phase = command.name;
      count = 0;
      retries = 0;
      uncounted = 0;
      firstAt = 0;
      lastAt = 0;
      latencies = [];
      expected = null;
      windowMs = command.windowMs;
      windows = new Map();
      sequences = new Map();
      break;
    case 'expect':
      if (count >= command.count) {
        send({ type: 'reached', count, at: lastAt });
      } else {
        expected = command.count;
      }
      break;
    case 'stats':
      send({ type: 'stats', stats: stats() });
      break;
    case 'configure':
      behaviours = new Map(
        Object.entries(command.behaviours).map(([index, b]) => [Number(index), b]),
      );
      break;
  }
});
process.on('disconnect', () => process.exit(0));

async function listen(index: number): Promise<number> {
  const server: Server = createServer(certificate, (request, response) =>
    answer(index, request, response),
  );
  // Connections stay open between phases, as a receiver behind a keep-alive load balancer would.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 130_000;
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  return (server.address() as { port: number }).port;
}

async function main(): Promise<void> {
  const servers = Number(process.argv[2] ?? '1');
  const ports: number[] = [];
  for (let index = 0; index < servers; index += 1) {
    ports.push(await listen(index));
  }
  send({ type: 'ready', ports });
}

main().catch((error: unknown) => {
  console.error('bench receiver failed to start', error);
  process.exit(1);
});

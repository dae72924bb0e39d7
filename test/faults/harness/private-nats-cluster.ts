import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../support/free-port';
import { noteStarted } from './leftovers';
import type { PrivateNats } from './private-nats';

const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** One server of the cluster: its own client, route and monitoring ports and its own store. */
export class NatsClusterNode {
  private child: ChildProcess | undefined;

  constructor(
    readonly name: string,
    readonly port: number,
    readonly routePort: number,
    readonly monitorPort: number,
    private readonly args: string[],
    private readonly log: WriteStream,
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  running(): boolean {
    const child = this.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** Starts it on its ports and store; resolves once its monitoring port answers. */
  async start(): Promise<void> {
    if (this.running()) {
      return;
    }
    const server = spawn(NATS_SERVER, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    noteStarted({
      kind: 'process',
      pid: server.pid!,
      commandLine: `${[NATS_SERVER, ...this.args].join('\0')}\0`,
    });
    // One log for the cluster (the fault stack keeps it as nats-server.log): each line says whose.
    for (const stream of [server.stdout, server.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        // Lines still buffered when the cluster is closed are dropped, not written after its end.
        if (!this.log.writableEnded) {
          this.log.write(`[${this.name}] ${line}\n`);
        }
      });
    }
    this.child = server;
    const deadline = Date.now() + 20_000;
    // The monitoring port answers once the server listens; JetStream may still be catching up:
    // the cluster's waits are for that.
    while (
      !(await this.monitor('/varz').then(
        () => true,
        () => false,
      ))
    ) {
      if (!this.running()) {
        throw new Error(`nats-server ${this.name} exited at start (${server.exitCode})`);
      }
      if (Date.now() > deadline) {
        throw new Error(`nats-server ${this.name} did not answer on ${this.monitorPort} in 20 s`);
      }
      await sleep(100);
    }
  }

  /** SIGKILL (a crash, the store keeps what was synced) or SIGTERM (a pod's graceful stop). */
  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const server = this.child;
    this.child = undefined;
    if (!server || server.exitCode !== null || server.signalCode !== null) {
      return;
    }
    const exited = once(server, 'exit');
    server.kill(signal);
    await exited;
  }

  /** A monitoring endpoint's JSON (`/jsz`, `/varz`, ...). */
  async monitor<T = Record<string, unknown>>(path: string): Promise<T> {
    const response = await fetch(`http://127.0.0.1:${this.monitorPort}${path}`, {
      signal: AbortSignal.timeout(2000),
    });
    return (await response.json()) as T;
  }
}

/** What `/jsz` says of the JetStream meta group (the cluster's view of its servers). */
interface MetaCluster {
  name?: string;
  leader?: string;
  cluster_size?: number;
  replicas?: { name: string; current: boolean; offline?: boolean }[];
}

/**
 * Three (or `size`) nats-servers with JetStream in one cluster, of the fault suite's own: free
 * loopback ports (client, route, monitoring), a store per server in a temporary folder, distinct
 * server names (`n1`..). Each server can be killed or stopped and started again on its ports and
 * store, as a pod of a StatefulSet with its volume. As a `PrivateNats`, `url` lists every
 * server (what NATS_URL takes) and `port` is the first's.
 */
export class PrivateNatsCluster implements PrivateNats {
  readonly logFile: string;

  private constructor(
    readonly name: string,
    readonly nodes: NatsClusterNode[],
    private readonly folder: string,
    private readonly log: WriteStream,
  ) {
    this.logFile = join(folder, 'cluster.log');
  }

  static async start(size = 3): Promise<PrivateNatsCluster> {
    const folder = await mkdtemp(join(tmpdir(), 'svc-faults-nats-cluster-'));
    noteStarted({ kind: 'folder', folder });
    const log = createWriteStream(join(folder, 'cluster.log'), { flags: 'a' });
    log.on('error', () => undefined);
    const name = `faults_${Math.random().toString(36).slice(2, 8)}`;
    const ports: { client: number; route: number; monitor: number }[] = [];
    for (let i = 0; i < size; i += 1) {
      ports.push({ client: await freePort(), route: await freePort(), monitor: await freePort() });
    }
    const nodes = ports.map(({ client, route, monitor }, i) => {
      const routes = ports
        .filter((_, j) => j !== i)
        .map((other) => `nats://127.0.0.1:${other.route}`)
        .join(',');
      const args = [
        ...['-a', '127.0.0.1', '-p', String(client), '-m', String(monitor)],
        ...['-n', `n${i + 1}`, '-js', '-sd', join(folder, `n${i + 1}`)],
        ...['--cluster_name', name, '--cluster', `nats://127.0.0.1:${route}`, '--routes', routes],
      ];
      return new NatsClusterNode(`n${i + 1}`, client, route, monitor, args, log);
    });
    const cluster = new PrivateNatsCluster(name, nodes, folder, log);
    try {
      await Promise.all(nodes.map((node) => node.start()));
      await cluster.waitForMetaLeader(60_000);
      return cluster;
    } catch (error) {
      await cluster.close();
      throw error;
    }
  }

  get url(): string {
    return this.nodes.map((node) => node.url).join(',');
  }

  get port(): number {
    return this.nodes[0].port;
  }

  node(name: string): NatsClusterNode {
    const node = this.nodes.find((candidate) => candidate.name === name);
    if (!node) {
      throw new Error(
        `no server ${name} in the cluster (${this.nodes.map((n) => n.name).join(', ')})`,
      );
    }
    return node;
  }

  /** The meta leader as a running server sees it (null when none of them knows one). */
  async metaLeader(): Promise<string | null> {
    for (const node of this.nodes.filter((candidate) => candidate.running())) {
      const jsz = await node.monitor<{ meta_cluster?: MetaCluster }>('/jsz').catch(() => null);
      if (jsz?.meta_cluster?.leader) {
        return jsz.meta_cluster.leader;
      }
    }
    return null;
  }

  /**
   * Until the JetStream meta group has a leader and sees every running server as current:
   * streams can be created (and placed on all of them) from then on.
   */
  async waitForMetaLeader(timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const running = this.nodes.filter((node) => node.running()).map((node) => node.name);
      for (const node of this.nodes.filter((candidate) => candidate.running())) {
        const meta = await node
          .monitor<{ meta_cluster?: MetaCluster }>('/jsz')
          .then((jsz) => jsz.meta_cluster)
          .catch(() => undefined);
        const current = new Set([
          ...(meta?.leader ? [meta.leader] : []),
          ...(meta?.replicas ?? []).filter((r) => r.current && !r.offline).map((r) => r.name),
        ]);
        if (meta?.leader && running.every((name) => current.has(name))) {
          return meta.leader;
        }
      }
      if (Date.now() > deadline) {
        throw new Error(`the NATS cluster elected no meta leader within ${timeoutMs} ms`);
      }
      await sleep(250);
    }
  }

  /**
   * The server leading a stream, or with `consumer` that consumer (JetStream's info:
   * `cluster.leader`); null when it has none or nobody answers.
   */
  async leader(
    nc: NatsConnection,
    stream: string,
    consumer?: string,
  ): Promise<NatsClusterNode | null> {
    const cluster = await jetstreamManager(nc, { timeout: 2000 })
      .then(async (jsm) =>
        consumer === undefined
          ? (await jsm.streams.info(stream)).cluster
          : (await jsm.consumers.info(stream, consumer)).cluster,
      )
      .catch(() => undefined);
    return cluster?.leader ? this.node(cluster.leader) : null;
  }

  /**
   * Until a stream has a leader and every other server holds a current replica of it (a restarted
   * server has caught up), or, with `consumer`, that consumer too.
   */
  async waitUntilCurrent(
    nc: NatsConnection,
    stream: string,
    consumer?: string,
    timeoutMs = 60_000,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const cluster = await jetstreamManager(nc, { timeout: 2000 })
        .then(async (jsm) =>
          consumer === undefined
            ? (await jsm.streams.info(stream)).cluster
            : (await jsm.consumers.info(stream, consumer)).cluster,
        )
        .catch(() => undefined);
      const replicas = cluster?.replicas ?? [];
      if (
        cluster?.leader &&
        replicas.length === this.nodes.length - 1 &&
        replicas.every((replica) => replica.current && !replica.offline)
      ) {
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `${consumer === undefined ? `stream ${stream}` : `consumer ${stream}/${consumer}`} not ` +
            `current on all ${this.nodes.length} servers within ${timeoutMs} ms: ${JSON.stringify(cluster)}`,
        );
      }
      await sleep(250);
    }
  }

  /** kill -9 of every server (the whole cluster crashes). */
  async kill(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop('SIGKILL')));
  }

  /** Starts every server that is not running. */
  async start(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.start()));
  }

  running(): boolean {
    return this.nodes.every((node) => node.running());
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop('SIGTERM')));
    this.log.end();
    await rm(this.folder, { recursive: true, force: true });
  }
}

/** A three-server cluster for `FaultStackOptions.startNats`. */
export const startPrivateNatsCluster = (): Promise<PrivateNats> => PrivateNatsCluster.start(3);

import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { loadDeliveryConfig, loadNatsConfig } from '@svc/config';
import { natsConnectOptions, provisionJetStream } from '@svc/messaging';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait-for';
import { KUBERNETES } from './deploy-files';
import { K8sObject, render } from './kustomize-lite';

/**
 * components/nats-cluster's configuration, run: the production overlay's nats.conf started three
 * times with the machine's nats-server, as the StatefulSet would start it (the same environment,
 * the Secret's password, certificates from one CA), the only rewrite being where each node listens
 * and what its pods' DNS names stand for here (loopback ports). Then what the apps do with the
 * component's settings (svc-webhooks-config, NATS_PASSWORD), through the apps' own configuration
 * and connect options: the three nodes form a JetStream cluster over mutually authenticated TLS
 * routes; the apps' user creates a stream with EVENTS_STREAM_REPLICAS replicas over TLS with its
 * client certificate; a client without that certificate, or with another password, is refused;
 * the engine's own provisioning places its streams and consumers on the three nodes; and the
 * stream keeps taking messages once the node leading it is stopped.
 */
const production = render(join(KUBERNETES, 'overlays/production'));
const statefulSet = production.find((o) => o.kind === 'StatefulSet')!;
const serverContainer = statefulSet.spec.template.spec.containers.find(
  (c: K8sObject) => c.name === 'nats',
);
const conf: string = production.find(
  (o) => o.kind === 'ConfigMap' && o.metadata.name === 'svc-webhooks-nats-config',
)!.data['nats.conf'];
const appConfig: Record<string, string> = production.find(
  (o) => o.kind === 'ConfigMap' && o.metadata.name === 'svc-webhooks-config',
)!.data;
const headless = statefulSet.spec.serviceName;
const PASSWORD = `pw-${process.pid}-${Date.now()}`;

interface Node {
  name: string;
  client: number;
  route: number;
  monitor: number;
  dir: string;
  process?: ChildProcess;
}

describe('components/nats-cluster, run with nats-server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nats-cluster-'));
  const tls = join(dir, 'tls');
  const nodes: Node[] = [];
  const connections: NatsConnection[] = [];

  /** The apps' NATS settings: the component's, its DNS names standing for the loopback ports. */
  function appEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
    let urls = appConfig.NATS_URL;
    nodes.forEach((node) => {
      urls = urls.replace(`${node.name}.${headless}:4222`, `127.0.0.1:${node.client}`);
    });
    return {
      ...appConfig,
      NATS_URL: urls,
      NATS_PASSWORD: PASSWORD,
      NATS_TLS_CA_FILE: join(tls, 'ca.crt'),
      NATS_TLS_CERT_FILE: join(tls, 'client.crt'),
      NATS_TLS_KEY_FILE: join(tls, 'client.key'),
      ...overrides,
    };
  }

  async function connectAsApp(env = appEnv()): Promise<NatsConnection> {
    const connection = await connect(
      natsConnectOptions(loadNatsConfig(env).nats, 'deploy-test', {
        maxReconnectAttempts: -1,
        reconnectTimeWait: 200,
        timeout: 5000,
      }),
    );
    connections.push(connection);
    return connection;
  }

  beforeAll(async () => {
    mkdirSync(tls);
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
    const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl(
      'req',
      '-x509',
      ...key,
      '-keyout',
      join(dir, 'ca.key'),
      '-out',
      join(tls, 'ca.crt'),
      '-subj',
      '/CN=svc-webhooks-nats-ca',
      '-days',
      '1',
    );
    // as certificates.yaml asks cert-manager: the servers' for both usages, the apps' for clients
    for (const [name, usages] of [
      ['tls', 'serverAuth,clientAuth'],
      ['client', 'clientAuth'],
    ]) {
      writeFileSync(
        join(dir, `${name}.ext`),
        `subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=${usages}\n`,
      );
      openssl(
        'req',
        ...key,
        '-keyout',
        join(tls, `${name}.key`),
        '-out',
        join(dir, `${name}.csr`),
        '-subj',
        `/CN=${name}`,
      );
      openssl(
        'x509',
        '-req',
        '-in',
        join(dir, `${name}.csr`),
        '-CA',
        join(tls, 'ca.crt'),
        '-CAkey',
        join(dir, 'ca.key'),
        '-CAcreateserial',
        '-out',
        join(tls, `${name}.crt`),
        '-days',
        '1',
        '-extfile',
        join(dir, `${name}.ext`),
      );
    }
    for (let i = 0; i < statefulSet.spec.replicas; i++) {
      nodes.push({
        name: `${statefulSet.metadata.name}-${i}`,
        client: await freePort(),
        route: await freePort(),
        monitor: await freePort(),
        dir: join(dir, `node-${i}`),
      });
    }
    for (const node of nodes) {
      mkdirSync(join(node.dir, 'data'), { recursive: true });
      mkdirSync(join(node.dir, 'run'));
      let local = conf
        .replace('listen: 0.0.0.0:4222', `listen: 127.0.0.1:${node.client}`)
        .replace('http_port: 8222', `http: 127.0.0.1:${node.monitor}`)
        .replace('listen: 0.0.0.0:6222', `listen: 127.0.0.1:${node.route}`)
        .replaceAll('/etc/nats/tls/', `${tls}/`)
        .replace('/var/run/nats/', `${node.dir}/run/`)
        .replace(/store_dir:\s*\/data\b/, `store_dir: ${node.dir}/data`);
      for (const other of nodes) {
        local = local.replace(`${other.name}.${headless}:6222`, `127.0.0.1:${other.route}`);
      }
      writeFileSync(join(node.dir, 'nats.conf'), local);
      // the container's environment, as the kubelet would give it on this node's pod
      const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
      for (const variable of serverContainer.env) {
        env[variable.name] = variable.valueFrom?.fieldRef
          ? node.name
          : variable.valueFrom?.secretKeyRef
            ? PASSWORD
            : String(variable.value).replace(/\$\((\w+)\)/g, (_, name) => env[name]);
      }
      env.CLIENT_ADVERTISE = `127.0.0.1:${node.client}`;
      env.CLUSTER_ADVERTISE = `127.0.0.1:${node.route}`;
      node.process = spawn('nats-server', ['-c', join(node.dir, 'nats.conf')], {
        env,
        stdio: 'ignore',
      });
    }
    // healthy: JetStream enabled and current, which needs the meta group's quorum
    await waitFor(
      async () => {
        const answers = await Promise.all(
          nodes.map((node) =>
            fetch(`http://127.0.0.1:${node.monitor}/healthz`)
              .then((response) => response.ok)
              .catch(() => false),
          ),
        );
        return answers.every(Boolean);
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'three healthy NATS servers' },
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
    for (const node of nodes) node.process?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('forms one cluster over TLS routes, each node routed to the two others', async () => {
    const monitor = async (node: Node, path: string): Promise<K8sObject> =>
      JSON.parse(await (await fetch(`http://127.0.0.1:${node.monitor}${path}`)).text());
    const ids = new Map<string, string>();
    for (const node of nodes) ids.set((await monitor(node, '/varz')).server_id, node.name);
    for (const node of nodes) {
      const routez = await monitor(node, '/routez');
      const peers = new Set(
        routez.routes.map((route: { remote_id: string }) => ids.get(route.remote_id)),
      );
      expect({ node: node.name, peers: [...peers].sort() }).toEqual({
        node: node.name,
        peers: nodes.filter((other) => other !== node).map((other) => other.name),
      });
      // TLS with verified certificates on both ports
      const varz = await monitor(node, '/varz');
      expect({
        node: node.name,
        clients: [varz.tls_required, varz.tls_verify],
        routes: [varz.cluster.tls_required, varz.cluster.tls_verify],
      }).toEqual({ node: node.name, clients: [true, true], routes: [true, true] });
    }
  });

  it('lets the apps, with their settings, create a stream of EVENTS_STREAM_REPLICAS replicas', async () => {
    const connection = await connectAsApp();
    expect(connection.info?.tls_required).toBe(true);
    const manager = await jetstreamManager(connection);
    const replicas = Number(appConfig.EVENTS_STREAM_REPLICAS);
    const info = await manager.streams.add({
      name: 'DEPLOY_TEST',
      subjects: ['deploy.test.>'],
      num_replicas: replicas,
    });
    expect(info.config.num_replicas).toBe(3);
    expect(1 + (info.cluster?.replicas?.length ?? 0)).toBe(replicas);
    const ack = await jetstream(connection).publish('deploy.test.one', 'one');
    expect(ack.seq).toBe(1);
  });

  it("lets the delivery engine's own provisioning place its streams and consumers on all three nodes", async () => {
    const connection = await connectAsApp();
    // the engine's settings as the production overlay gives them (stand-ins for the Secrets)
    const { jetstream: settings } = loadDeliveryConfig(
      appEnv({
        DATABASE_URL: 'postgresql://svc_webhooks:x@svc-webhooks-pg-rw:5432/svc_webhooks',
        SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      }),
    );
    const summary = await provisionJetStream(connection, settings);
    expect(summary.created.length).toBeGreaterThanOrEqual(5);
    const manager = await jetstreamManager(connection);
    const stream = await manager.streams.info(settings.eventsStream);
    const consumer = await manager.consumers.info(settings.eventsStream, settings.consumer);
    expect({
      stream: 1 + (stream.cluster?.replicas?.length ?? 0),
      consumer: 1 + (consumer.cluster?.replicas?.length ?? 0),
    }).toEqual({ stream: statefulSet.spec.replicas, consumer: statefulSet.spec.replicas });
  });

  it('refuses a client without the client certificate, or with another password', async () => {
    const one = `nats://127.0.0.1:${nodes[0].client}`;
    const attempts = [
      appEnv({ NATS_URL: one, NATS_TLS_CERT_FILE: undefined, NATS_TLS_KEY_FILE: undefined }),
      appEnv({ NATS_URL: one, NATS_PASSWORD: 'not-the-secret' }),
      appEnv({ NATS_URL: one }), // the same attempt with both: the difference is the refusal
    ].map((env) =>
      connect(
        natsConnectOptions(loadNatsConfig(env).nats, 'deploy-test', {
          reconnect: false,
          timeout: 5000,
        }),
      ).then(
        (connection) => {
          connections.push(connection);
          return 'connected';
        },
        () => 'refused',
      ),
    );
    expect(await Promise.all(attempts)).toEqual(['refused', 'refused', 'connected']);
  });

  it('keeps the stream writable with the node leading it stopped (one node lost)', async () => {
    const connection = await connectAsApp();
    const manager = await jetstreamManager(connection);
    const leader = (await manager.streams.info('DEPLOY_TEST')).cluster?.leader;
    const lost = nodes.find((node) => node.name === leader)!;
    expect(lost).toBeDefined();
    lost.process!.kill('SIGKILL');
    const ack = await waitFor(
      () =>
        jetstream(connection)
          .publish('deploy.test.two', 'two', { timeout: 1000 })
          .catch(() => undefined),
      { timeoutMs: 30_000, intervalMs: 250, what: 'a publish once a new leader is elected' },
    );
    expect(ack.seq).toBe(2);
    const info = await manager.streams.info('DEPLOY_TEST');
    expect(info.cluster?.leader).not.toBe(leader);
    expect(info.state.messages).toBe(2);
  });
});

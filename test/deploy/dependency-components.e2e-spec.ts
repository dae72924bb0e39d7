import { loadApiConfig, loadAuthConfig, loadCliConfig, loadDeliveryConfig } from '@svc/config';
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBERNETES } from './deploy-files';
import { EXPORTERS } from './exporter-metrics';
import { schemaProblems } from './kubernetes-schemas';
import { K8sObject, render } from './kustomize-lite';
import { invariantProblems } from './workload-invariants';

/**
 * Issue 36: the NATS cluster and the PostgreSQL cluster as kustomize components
 * (components/nats-cluster, components/postgres-cluster, components/dependency-monitors), as the
 * production overlay renders them and as each renders alone on the base: what a platform engineer
 * would check by reading them, checked here. The NATS configuration itself goes through
 * `nats-server -t` (the machine's nats-server), with certificates made for the occasion.
 */
const COMPONENTS = join(KUBERNETES, 'components');
const NATS = join(COMPONENTS, 'nats-cluster');
const POSTGRES = join(COMPONENTS, 'postgres-cluster');
const MONITORS = join(COMPONENTS, 'dependency-monitors');
const MIGRATE_JOB = join(COMPONENTS, 'migrate-job');
const BASE = join(KUBERNETES, 'base');

const production = render(join(KUBERNETES, 'overlays/production'));
/** The production overlay with the migration Job listed before its own components. */
const productionWithJob = render(join(KUBERNETES, 'overlays/production'), [MIGRATE_JOB], {
  first: true,
});

function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found;
}

/** An overlay of the base with only `components`, as a team taking one of them would write. */
function overlayOf(components: string[]): K8sObject[] {
  const dir = mkdtempSync(join(tmpdir(), 'overlay-'));
  try {
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      JSON.stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        namespace: 'team',
        resources: [BASE],
        components,
      }),
    );
    return render(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function appConfig(objects: K8sObject[]): Record<string, string> {
  return find(objects, 'ConfigMap', 'svc-webhooks-config').data;
}

/** Every container of the workloads (init containers too), as [where, container]. */
function containers(objects: K8sObject[], kinds = ['Deployment', 'Job']): [string, K8sObject][] {
  return objects
    .filter((o) => kinds.includes(o.kind))
    .flatMap((o) => {
      const pod = o.spec.template.spec;
      return [...(pod.initContainers ?? []), ...pod.containers].map(
        (c: K8sObject): [string, K8sObject] => [`${o.metadata.name}/${c.name}`, c],
      );
    });
}

function envFrom(container: K8sObject, name: string): K8sObject | undefined {
  return (container.env ?? []).find((variable: K8sObject) => variable.name === name);
}

/** The server's nats.conf and the StatefulSet that runs it. */
function natsServer(objects: K8sObject[]) {
  const statefulSet = find(objects, 'StatefulSet', 'svc-webhooks-nats');
  const pod = statefulSet.spec.template.spec;
  const server = pod.containers.find((c: K8sObject) => c.name === 'nats');
  const configVolume = pod.volumes.find((v: K8sObject) => v.configMap);
  const conf: string = find(objects, 'ConfigMap', configVolume.configMap.name).data['nats.conf'];
  return { statefulSet, pod, server, conf };
}

/** The routes of nats.conf's cluster block, as URLs. */
function routes(conf: string): URL[] {
  const block = /routes:\s*\[([^\]]*)\]/.exec(conf)![1];
  return block
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((route) => new URL(route));
}

function bytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi|Ti|KB|MB|GB|TB|K|M|G|T)?$/.exec(quantity)!;
  const unit = match[2] ?? '';
  const powers: Record<string, number> = { '': 0, K: 1, M: 2, G: 3, T: 4 };
  const base = unit.endsWith('i') ? 1024 : unit ? 1000 : 1;
  return Number(match[1]) * base ** powers[unit.replace(/i|B/g, '')];
}

describe('components/nats-cluster in the production overlay', () => {
  const { statefulSet, pod, server, conf } = natsServer(production);
  const headless = find(production, 'Service', statefulSet.spec.serviceName);
  const serverCertificate = find(production, 'Certificate', 'svc-webhooks-nats-server');

  it('runs three nodes, one per Kubernetes node, under a headless Service and a disruption budget', () => {
    expect(statefulSet.spec.replicas).toBe(3);
    expect(statefulSet.spec.podManagementPolicy).toBe('Parallel');
    expect(headless.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
    expect(headless.spec.selector).toEqual(statefulSet.spec.selector.matchLabels);
    const [antiAffinity] =
      pod.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    expect(antiAffinity.topologyKey).toBe('kubernetes.io/hostname');
    expect(antiAffinity.labelSelector.matchLabels).toEqual(statefulSet.spec.selector.matchLabels);
    const budget = find(production, 'PodDisruptionBudget', 'svc-webhooks-nats');
    expect(budget.spec).toEqual({
      maxUnavailable: 1,
      selector: { matchLabels: statefulSet.spec.selector.matchLabels },
    });
  });

  it('routes to every node by its stable DNS name, and advertises those names', () => {
    const names = [0, 1, 2].map(
      (i) => `${statefulSet.metadata.name}-${i}.${headless.metadata.name}`,
    );
    expect(routes(conf).map((route) => `${route.hostname}:${route.port}`)).toEqual(
      names.map((name) => `${name}:6222`),
    );
    const env = Object.fromEntries(server.env.map((v: K8sObject) => [v.name, v]));
    expect(env.SERVER_NAME.valueFrom.fieldRef.fieldPath).toBe('metadata.name');
    expect(env.CLIENT_ADVERTISE.value).toBe(`$(SERVER_NAME).${headless.metadata.name}:4222`);
    expect(env.CLUSTER_ADVERTISE.value).toBe(`$(SERVER_NAME).${headless.metadata.name}:6222`);
    expect(conf).toMatch(/^server_name: \$SERVER_NAME$/m);
    expect(conf).toMatch(/^client_advertise: \$CLIENT_ADVERTISE$/m);
    expect(conf).toMatch(/^\s+advertise: \$CLUSTER_ADVERTISE$/m);
  });

  it('keeps JetStream on the PVC, its file store capped below the volume', () => {
    const storeDir = /store_dir:\s*(\S+)/.exec(conf)![1];
    const maxFileStore = /max_file_store:\s*(\S+)/.exec(conf)![1];
    const mount = server.volumeMounts.find((m: K8sObject) => m.mountPath === storeDir);
    const [claim] = statefulSet.spec.volumeClaimTemplates;
    expect(mount.name).toBe(claim.metadata.name);
    expect(bytes(maxFileStore)).toBeLessThan(bytes(claim.spec.resources.requests.storage));
  });

  it('serves clients and routes over TLS with the certificate cert-manager issues for every name dialled', () => {
    const tlsFiles = [...conf.matchAll(/(cert_file|key_file|ca_file):\s*(\S+)/g)].map((m) => m[2]);
    expect(tlsFiles).toHaveLength(6); // clients and cluster
    expect(conf.match(/verify: true/g)).toHaveLength(2);
    const tlsMount = server.volumeMounts.find((m: K8sObject) =>
      tlsFiles.every((file) => file.startsWith(`${m.mountPath}/`)),
    );
    const tlsVolume = pod.volumes.find((v: K8sObject) => v.name === tlsMount.name);
    expect(tlsVolume.secret.secretName).toBe(serverCertificate.spec.secretName);
    expect(serverCertificate.spec.usages).toEqual(
      expect.arrayContaining(['server auth', 'client auth']),
    );
    const dialled = [
      ...routes(conf).map((route) => route.hostname),
      ...appConfig(production)
        .NATS_URL.split(',')
        .map((url) => new URL(url).hostname),
    ];
    expect(dialled.filter((host) => !serverCertificate.spec.dnsNames.includes(host))).toEqual([]);
    // both certificates come from the cluster's own CA issuer
    const client = find(production, 'Certificate', 'svc-webhooks-nats-client');
    expect(client.spec.issuerRef).toEqual(serverCertificate.spec.issuerRef);
    expect(client.spec.usages).toContain('client auth');
  });

  it('gives the apps an account of their own, its password from the Secret the apps read too', () => {
    expect(conf).toMatch(
      /SVC_WEBHOOKS: \{\s*jetstream: enabled\s*users: \[\s*\{ user: svc-webhooks, password: \$SVC_WEBHOOKS_PASSWORD \}/,
    );
    const password = server.env.find((v: K8sObject) => v.name === 'SVC_WEBHOOKS_PASSWORD');
    expect(password.valueFrom.secretKeyRef).toEqual({
      name: 'svc-webhooks-nats-auth',
      key: 'app-password',
    });
    expect(appConfig(production).NATS_USER).toBe('svc-webhooks');
    for (const [where, container] of containers(production, ['Deployment']).filter(
      ([where]) => !where.endsWith('/migrate'),
    )) {
      expect({ where, ref: envFrom(container, 'NATS_PASSWORD')?.valueFrom?.secretKeyRef }).toEqual({
        where,
        ref: password.valueFrom.secretKeyRef,
      });
    }
  });

  it('points the apps at the three nodes, with three stream replicas and their client certificate', () => {
    const config = appConfig(production);
    const urls = config.NATS_URL.split(',').map((url) => new URL(url));
    expect(urls.map((url) => `${url.hostname}:${url.port}`)).toEqual(
      routes(conf).map((route) => `${route.hostname}:4222`),
    );
    expect(Number(config.EVENTS_STREAM_REPLICAS)).toBe(statefulSet.spec.replicas);
    // the engines' consumers on every node too
    expect(Number(config.DELIVERY_CONSUMER_REPLICAS)).toBe(statefulSet.spec.replicas);
    const client = find(production, 'Certificate', 'svc-webhooks-nats-client');
    for (const [where, container] of containers(production, ['Deployment']).filter(
      ([where]) => !where.endsWith('/migrate'),
    )) {
      const deployment = find(production, 'Deployment', where.split('/')[0]);
      const files = ['NATS_TLS_CA_FILE', 'NATS_TLS_CERT_FILE', 'NATS_TLS_KEY_FILE'].map(
        (name) => config[name],
      );
      const mount = container.volumeMounts.find((m: K8sObject) =>
        files.every((file) => file.startsWith(`${m.mountPath}/`)),
      );
      const volume = deployment.spec.template.spec.volumes.find(
        (v: K8sObject) => v.name === mount?.name,
      );
      expect({ where, secret: volume?.secret?.secretName }).toEqual({
        where,
        secret: client.spec.secretName,
      });
    }
  });

  it('admits the apps on the client port and the nodes on the route port', () => {
    const policy = find(production, 'NetworkPolicy', 'svc-webhooks-nats');
    expect(policy.spec.podSelector.matchLabels).toEqual(statefulSet.spec.selector.matchLabels);
    const sources = (port: number) =>
      policy.spec.ingress
        .filter((rule: K8sObject) => rule.ports.some((p: K8sObject) => p.port === port))
        .flatMap((rule: K8sObject) => rule.from ?? [{ anyone: true }]);
    const apiPod = find(production, 'Deployment', 'svc-webhooks-api').spec.template.metadata.labels;
    const matches = (peer: K8sObject, labels: Record<string, string>) =>
      Object.entries(peer.podSelector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
    expect(sources(4222).some((peer: K8sObject) => matches(peer, apiPod))).toBe(true);
    expect(sources(6222)).toEqual([{ podSelector: statefulSet.spec.selector }]);
    // and the apps' own egress allows the client port (base/network-policies.yaml)
    const egressPorts = production
      .filter((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'svc-webhooks-platform')
      .flatMap((o) =>
        o.spec.egress.flatMap((e: K8sObject) => e.ports.map((p: K8sObject) => p.port)),
      );
    expect(egressPorts).toEqual(expect.arrayContaining([4222, 5432]));
  });

  it('nats-server -t accepts the configuration, and refuses a broken one (the check can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nats-conf-'));
    try {
      // where each of the server container's mounts is, here
      const paths = new Map<string, string>(
        server.volumeMounts
          .filter((m: K8sObject) => !m.subPath)
          .map((m: K8sObject) => [m.mountPath, join(dir, m.name)]),
      );
      for (const path of paths.values()) mkdirSync(path);
      const tls = paths.get('/etc/nats/tls')!;
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
        '/CN=ca',
        '-days',
        '1',
      );
      openssl(
        'req',
        ...key,
        '-keyout',
        join(tls, 'tls.key'),
        '-out',
        join(dir, 'tls.csr'),
        '-subj',
        '/CN=nats',
      );
      openssl(
        'x509',
        '-req',
        '-in',
        join(dir, 'tls.csr'),
        '-CA',
        join(tls, 'ca.crt'),
        '-CAkey',
        join(dir, 'ca.key'),
        '-CAcreateserial',
        '-out',
        join(tls, 'tls.crt'),
        '-days',
        '1',
      );
      let local = conf;
      for (const [mountPath, path] of paths) local = local.replaceAll(`${mountPath}/`, `${path}/`);
      local = local.replace(/store_dir:\s*\/data\b/, `store_dir: ${paths.get('/data')}`);
      const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
      for (const variable of server.env) {
        env[variable.name] = variable.valueFrom
          ? variable.valueFrom.fieldRef
            ? 'svc-webhooks-nats-0'
            : 'a-password-from-the-secret'
          : String(variable.value).replace(/\$\((\w+)\)/g, (_, name) => env[name]);
      }
      const check = (text: string) => {
        writeFileSync(join(dir, 'nats.conf'), text);
        const run = spawnSync('nats-server', ['-t', '-c', join(dir, 'nats.conf')], {
          env,
          encoding: 'utf8',
        });
        return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
      };
      expect(check(local)).toEqual({
        status: 0,
        output: expect.stringContaining('is valid'),
      });
      expect(check(local.replace('max_file_store', 'max_file_stor')).output).toContain(
        'unknown field "max_file_stor"',
      );
      delete env.SVC_WEBHOOKS_PASSWORD;
      expect(check(local).output).toContain("'SVC_WEBHOOKS_PASSWORD'");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('components/postgres-cluster in the production overlay', () => {
  const cluster = find(production, 'Cluster', 'svc-webhooks-pg');

  it('is a primary and a synchronous standby on different nodes, bootstrapping the apps database', () => {
    expect(cluster.spec.instances).toBe(2);
    expect(cluster.spec.postgresql.synchronous).toEqual({
      method: 'any',
      number: 1,
      dataDurability: 'required',
    });
    expect(cluster.spec.postgresql.synchronous.number).toBeLessThan(cluster.spec.instances);
    // one way of synchronous replication only: the older pair is mutually exclusive with it
    expect(cluster.spec.minSyncReplicas).toBeUndefined();
    expect(cluster.spec.maxSyncReplicas).toBeUndefined();
    expect(cluster.spec.affinity).toMatchObject({
      enablePodAntiAffinity: true,
      podAntiAffinityType: 'required',
      topologyKey: 'kubernetes.io/hostname',
    });
    expect(cluster.spec.bootstrap.initdb).toEqual({
      database: 'svc_webhooks',
      owner: 'svc_webhooks',
    });
    expect(cluster.spec.imageName).toMatch(/:\d+(\.\d+)?/);
  });

  it.each([
    ['production', production],
    ['production with the migration Job listed first', productionWithJob],
  ])('%s: every container reads DATABASE_URL from the operator secret', (_, objects) => {
    const refs = containers(objects).map(([where, container]) => [
      where,
      envFrom(container, 'DATABASE_URL')?.valueFrom?.secretKeyRef,
      envFrom(container, 'SECRET_ENCRYPTION_KEY')?.valueFrom?.secretKeyRef?.name,
    ]);
    expect(refs.length).toBe(objects === production ? 6 : 7);
    expect(refs).toEqual(
      refs.map(([where]) => [
        where,
        { name: `${cluster.metadata.name}-app`, key: 'uri' },
        'svc-webhooks-secrets',
      ]),
    );
  });

  it('the max_connections it sets holds the pools of every pod at the autoscalers maximum', () => {
    const config = appConfig(production);
    const pods = production
      .filter((o) => o.kind === 'Deployment')
      .map((deployment) => {
        const hpa = production.find(
          (o) =>
            o.kind === 'HorizontalPodAutoscaler' &&
            o.spec.scaleTargetRef.name === deployment.metadata.name,
        );
        return hpa ? hpa.spec.maxReplicas : deployment.spec.replicas;
      })
      .reduce((a, b) => a + b, 0);
    expect(pods * Number(config.DATABASE_POOL_SIZE)).toBeLessThan(
      Number(cluster.spec.postgresql.parameters.max_connections),
    );
  });
});

describe('the production overlay, as each app reads it', () => {
  /** What the Secrets hold, by key: stand-ins of the right form. */
  const SECRETS: Record<string, string> = {
    uri: 'postgresql://svc_webhooks:from-the-operator@svc-webhooks-pg-rw.svc-webhooks:5432/svc_webhooks',
    SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    AUTH_SIGNING_KEYS: JSON.stringify([
      {
        ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
        kid: 'k1',
      },
    ]),
    'app-password': 'from-the-secret',
  };

  /** The environment the kubelet gives `container`: the ConfigMap, then its own env. */
  function environment(container: K8sObject): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...appConfig(production) };
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref?.optional) continue;
      env[variable.name] = ref
        ? SECRETS[ref.key]
        : String(variable.value).replace(/\$\((\w+)\)/g, (_, name: string) => env[name] ?? '');
    }
    return env;
  }

  const loaders: Record<string, (env: NodeJS.ProcessEnv) => object> = {
    api: loadApiConfig,
    auth: loadAuthConfig,
    delivery: loadDeliveryConfig,
    migrate: loadCliConfig,
  };

  it.each(containers(production, ['Deployment']))(
    '%s loads its configuration, with the clusters of the components',
    (_, container) => {
      const config = loaders[container.name](environment(container)) as K8sObject;
      expect(config.database.url).toBe(SECRETS.uri);
      if (container.name === 'migrate') return;
      expect(config.nats).toMatchObject({
        servers: appConfig(production).NATS_URL.split(','),
        user: 'svc-webhooks',
        password: SECRETS['app-password'],
        tls: {
          caFile: '/etc/svc/nats-tls/ca.crt',
          certFile: '/etc/svc/nats-tls/tls.crt',
          keyFile: '/etc/svc/nats-tls/tls.key',
        },
      });
      if (container.name === 'delivery') {
        expect(config.jetstream).toMatchObject({ replicas: 3, consumerReplicas: 3 });
      }
    },
  );
});

describe('components/dependency-monitors', () => {
  it('scrapes the NATS exporter and the PostgreSQL instances of the production overlay', () => {
    const { statefulSet, pod } = natsServer(production);
    const nats = find(production, 'PodMonitor', 'svc-webhooks-nats');
    expect(nats.spec.selector.matchLabels).toEqual(statefulSet.spec.selector.matchLabels);
    const ports = pod.containers.flatMap((c: K8sObject) => c.ports.map((p: K8sObject) => p.name));
    expect(ports).toContain(nats.spec.podMetricsEndpoints[0].port);
    // the job the alerts select (exporter-metrics.ts)
    expect(statefulSet.spec.template.metadata.labels[nats.spec.jobLabel]).toBe(
      EXPORTERS['prometheus-nats-exporter'].job,
    );
    const pg = find(production, 'PodMonitor', 'svc-webhooks-pg');
    expect(pg.spec.jobLabel).toBe('cnpg.io/cluster');
    // CloudNativePG labels its pods cnpg.io/cluster=<the Cluster's name>
    expect(pg.spec.selector.matchLabels['cnpg.io/cluster']).toBe(EXPORTERS.cloudnative_pg.job);
    expect(find(production, 'Cluster', EXPORTERS.cloudnative_pg.job)).toBeDefined();
  });
});

describe.each([
  ['nats-cluster', [NATS]],
  ['postgres-cluster', [POSTGRES]],
  ['dependency-monitors', [MONITORS]],
])('the base with %s alone', (name, components) => {
  const objects = overlayOf(components);

  it('renders valid, hardened objects', () => {
    expect(schemaProblems(objects)).toEqual([]);
    expect(invariantProblems(objects, { imagePlaceholder: 'svc-webhooks' })).toEqual([]);
  });

  it('changes only its own part of the apps settings', () => {
    const config = appConfig(objects);
    const base = appConfig(overlayOf([]));
    const databaseRefs = containers(objects).map(
      ([, container]) => envFrom(container, 'DATABASE_URL')?.valueFrom.secretKeyRef.name,
    );
    if (name === 'nats-cluster') {
      expect(config.NATS_URL.split(',')).toHaveLength(3);
      expect(new Set(databaseRefs)).toEqual(new Set(['svc-webhooks-secrets']));
    } else {
      expect(config).toEqual(base);
      expect(objects.some((o) => o.kind === 'StatefulSet')).toBe(false);
    }
    if (name === 'postgres-cluster') {
      expect(new Set(databaseRefs)).toEqual(new Set(['svc-webhooks-pg-app']));
    }
  });
});

describe('the staging overlay', () => {
  it('keeps the platform NATS and PostgreSQL (no component of theirs)', () => {
    const staging = render(join(KUBERNETES, 'overlays/staging'));
    expect(
      staging.filter((o) => ['StatefulSet', 'Cluster', 'Certificate'].includes(o.kind)),
    ).toEqual([]);
  });
});

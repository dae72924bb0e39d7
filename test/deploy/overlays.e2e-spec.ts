import { join, resolve } from 'node:path';
import { K8sObject, render, strategicMerge } from './kustomize-lite';

/**
 * Issue 11, items 3 and 5: the overlays rendered (kustomize-lite, as `kustomize build` would)
 * and checked: each environment names its own NATS subject root, streams and consumer, and
 * every workload keeps its probes, limits, non-root user, read-only root filesystem and a pinned
 * image; autoscalers, network policies and the Ingress are there and say what ADR 0020 says.
 */
const KUBERNETES = resolve(__dirname, '../../deploy/kubernetes');
const OVERLAYS = ['staging', 'production'];
const NATS_NAMES = [
  'NATS_SUBJECT_ROOT',
  'EVENTS_STREAM',
  'DEAD_LETTER_STREAM',
  'DELIVERY_CONSUMER',
];

const rendered = new Map<string, K8sObject[]>(
  OVERLAYS.map((name) => [name, render(join(KUBERNETES, 'overlays', name))]),
);
/** Each overlay's migration Job, as the optional component renders it into that overlay. */
const migrateJobs = new Map<string, K8sObject[]>(
  OVERLAYS.map((name) => [
    name,
    render(join(KUBERNETES, 'overlays', name), [join(KUBERNETES, 'components/migrate-job')]).filter(
      (o) => o.kind === 'Job',
    ),
  ]),
);

function config(objects: K8sObject[]): Record<string, string> {
  return objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'svc-webhooks-config')!
    .data;
}

function pods(objects: K8sObject[]): [string, K8sObject][] {
  return objects
    .filter((o) => ['Deployment', 'Job'].includes(o.kind))
    .map((o) => [o.metadata.name, o.spec.template.spec]);
}

/** Pairs of overlays sharing a NATS name: [name, value, overlays]. */
export function sharedNatsNames(configs: Map<string, Record<string, string>>): string[][] {
  const shared: string[][] = [];
  for (const variable of NATS_NAMES) {
    const byValue = new Map<string, string[]>();
    for (const [overlay, data] of configs) {
      const value = data[variable] ?? `(default of ${variable})`;
      byValue.set(value, [...(byValue.get(value) ?? []), overlay]);
    }
    for (const [value, overlays] of byValue) {
      if (overlays.length > 1) shared.push([variable, value, ...overlays]);
    }
  }
  return shared;
}

describe('NATS names per environment', () => {
  it('no two overlays share a subject root, a stream or a consumer', () => {
    const configs = new Map([...rendered].map(([name, objects]) => [name, config(objects)]));
    expect(sharedNatsNames(configs)).toEqual([]);
    for (const data of configs.values()) {
      for (const variable of NATS_NAMES) expect(data[variable]).toEqual(expect.any(String));
    }
  });

  it('would catch two overlays left on the defaults (the check can fail)', () => {
    expect(
      sharedNatsNames(
        new Map<string, Record<string, string>>([
          ['a', { NATS_SUBJECT_ROOT: 'x' }],
          ['b', { NATS_SUBJECT_ROOT: 'x', EVENTS_STREAM: 'E' }],
        ]),
      ),
    ).toEqual([
      ['NATS_SUBJECT_ROOT', 'x', 'a', 'b'],
      ['DEAD_LETTER_STREAM', '(default of DEAD_LETTER_STREAM)', 'a', 'b'],
      ['DELIVERY_CONSUMER', '(default of DELIVERY_CONSUMER)', 'a', 'b'],
    ]);
  });
});

describe.each(OVERLAYS)('the %s overlay, rendered', (overlay) => {
  const objects = rendered.get(overlay)!;

  it('puts everything in its namespace', () => {
    expect(new Set(objects.map((o) => o.metadata.namespace)).size).toBe(1);
  });

  it.each(pods([...objects, ...migrateJobs.get(overlay)!]))(
    '%s: probes, limits, non-root, read-only root, pinned image',
    (_, pod) => {
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect(container.image).toMatch(/^[^:@]+(:[\w.-]+|@sha256:[0-9a-f]{64})$/);
        expect(container.image).not.toMatch(/:latest$/);
        expect(container.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
        });
        expect(container.resources.limits).toEqual({
          cpu: expect.anything(),
          memory: expect.anything(),
        });
        expect(container.resources.requests).toEqual({
          cpu: expect.anything(),
          memory: expect.anything(),
        });
      }
      if (pod.restartPolicy === undefined) {
        for (const container of pod.containers) {
          for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
            expect(container[probe].httpGet.port).toBe('management');
          }
        }
      }
    },
  );

  it('autoscales the API and the delivery engine, never below two replicas', () => {
    const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual([
      'svc-webhooks-api',
      'svc-webhooks-delivery',
    ]);
    for (const hpa of hpas) {
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    }
  });

  it('routes only the public ports of the API and auth through the Ingress', () => {
    const services = objects.filter((o) => o.kind === 'Service');
    const ingress = objects.find((o) => o.kind === 'Ingress')!;
    const backends = ingress.spec.rules.flatMap((rule: K8sObject) =>
      rule.http.paths.map((path: K8sObject) => path.backend.service),
    );
    expect(backends.map((b: K8sObject) => b.name).sort()).toEqual([
      'svc-webhooks-api',
      'svc-webhooks-auth',
    ]);
    for (const backend of backends) {
      const service = services.find((s) => s.metadata.name === backend.name)!;
      const port = service.spec.ports.find((p: K8sObject) => p.name === backend.port.name);
      expect({ backend: backend.name, port: port?.name }).toEqual({
        backend: backend.name,
        port: 'http',
      });
    }
  });

  it('lets the delivery engine reach only DNS, PostgreSQL, NATS and port 443 outside the cluster', () => {
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
    const deny = policies.find((p) => p.metadata.name === 'svc-webhooks-default-deny')!;
    expect(deny.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'svc-webhooks' } },
      policyTypes: ['Ingress', 'Egress'],
    });
    const internet = policies.find((p) => p.metadata.name === 'svc-webhooks-delivery-internet')!;
    const [rule] = internet.spec.egress;
    expect(rule.ports).toEqual([{ port: 443, protocol: 'TCP' }]);
    const v4 = rule.to.find((peer: K8sObject) => peer.ipBlock.cidr === '0.0.0.0/0');
    expect(v4.ipBlock.except).toEqual(
      expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']),
    );
    const ports = policies
      .flatMap((p) => p.spec.egress ?? [])
      .flatMap((e: K8sObject) => (e.ports ?? []).map((p: K8sObject) => p.port))
      .sort((a: number, b: number) => a - b);
    expect([...new Set(ports)]).toEqual([53, 443, 4222, 5432, 8081]);
  });
});

describe('kustomize-lite', () => {
  it('merges lists of named items by name and replaces other values', () => {
    expect(
      strategicMerge(
        { containers: [{ name: 'a', image: 'x', ports: [1] }, { name: 'b' }], replicas: 1 },
        { containers: [{ name: 'a', image: 'y' }], replicas: 3 },
      ),
    ).toEqual({ containers: [{ name: 'a', image: 'y', ports: [1] }, { name: 'b' }], replicas: 3 });
  });
});

import { join } from 'node:path';
import { KUBERNETES, RULES, yamlDocuments } from './deploy-files';
import { describeObject, schemaProblems, VALIDATED_KINDS } from './kubernetes-schemas';
import { K8sObject, render } from './kustomize-lite';
import { invariantProblems, pinnedImage } from './workload-invariants';

/**
 * Issue 11: every manifest deploy/ renders is checked against the Kubernetes schemas (the npm
 * package kubernetes-models; the Prometheus Operator's for the ServiceMonitor and the
 * PrometheusRule) and against the invariants every workload keeps. Rendered with kustomize-lite
 * as `kustomize build` would: the base, each overlay, and each overlay with the optional
 * migration Job component.
 */
const MIGRATE_JOB = join(KUBERNETES, 'components/migrate-job');
const RENDERINGS: [string, K8sObject[]][] = [
  ['base', render(join(KUBERNETES, 'base'))],
  ...['staging', 'production'].flatMap((overlay): [string, K8sObject[]][] => [
    [overlay, render(join(KUBERNETES, 'overlays', overlay))],
    [`${overlay} + migrate-job`, render(join(KUBERNETES, 'overlays', overlay), [MIGRATE_JOB])],
  ]),
];

/** A valid Deployment of the production overlay, to break in the tests that show failures. */
function productionApi(): K8sObject {
  const objects = RENDERINGS.find(([name]) => name === 'production')![1];
  return structuredClone(
    objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'svc-webhooks-api')!,
  );
}

describe.each(RENDERINGS)('deploy/kubernetes rendered: %s', (name, objects) => {
  it('validates against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(10);
    expect(schemaProblems(objects)).toEqual([]);
  });

  it('keeps every workload bounded, non-root, read-only, probed and pinned', () => {
    const workloads = objects.filter((o) => ['Deployment', 'Job'].includes(o.kind));
    expect(workloads.length).toBeGreaterThanOrEqual(3);
    // the base names the image by its placeholder; the overlays pin it (kustomize `images`)
    const options = name === 'base' ? { imagePlaceholder: 'svc-webhooks' } : {};
    expect(invariantProblems(objects, options)).toEqual([]);
  });

  it('runs the migration first in every app pod', () => {
    for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
      const pod = deployment.spec.template.spec;
      expect({
        deployment: deployment.metadata.name,
        init: pod.initContainers.map((c: K8sObject) => [c.name, c.image, c.command.slice(2, 3)]),
      }).toEqual({
        deployment: deployment.metadata.name,
        init: [['migrate', pod.containers[0].image, ['migrate']]],
      });
    }
  });
});

describe('the PrometheusRule of deploy/monitoring', () => {
  it('validates against the Prometheus Operator schema', () => {
    expect(schemaProblems(yamlDocuments(RULES))).toEqual([]);
  });
});

describe('the checks can fail', () => {
  it('maps only the kinds deploy/ uses and refuses any other', () => {
    expect(VALIDATED_KINDS).toEqual([
      'apps/v1 Deployment',
      'apps/v1 StatefulSet',
      'autoscaling/v2 HorizontalPodAutoscaler',
      'batch/v1 Job',
      'cert-manager.io/v1 Certificate',
      'cert-manager.io/v1 Issuer',
      'monitoring.coreos.com/v1 PodMonitor',
      'monitoring.coreos.com/v1 PrometheusRule',
      'monitoring.coreos.com/v1 ServiceMonitor',
      'networking.k8s.io/v1 Ingress',
      'networking.k8s.io/v1 NetworkPolicy',
      'policy/v1 PodDisruptionBudget',
      'postgresql.cnpg.io/v1 Cluster',
      'v1 ConfigMap',
      'v1 Service',
      'v1 ServiceAccount',
    ]);
    expect(
      schemaProblems([
        { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'x' } },
        { apiVersion: 'extensions/v1beta1', kind: 'Deployment', metadata: { name: 'old' } },
      ]),
    ).toEqual([
      'DaemonSet/x: unknown kind "DaemonSet" of apiVersion "apps/v1" (no schema to validate it against)',
      'Deployment/old: unknown kind "Deployment" of apiVersion "extensions/v1beta1" (no schema to validate it against)',
    ]);
  });

  it('reports a broken manifest: wrong types, a bad quantity, a missing required field', () => {
    const broken = productionApi();
    broken.spec.replicas = 'three';
    broken.spec.template.spec.containers[0].resources.limits.memory = '512 megabytes';
    broken.spec.template.spec.containers[0].ports[0].containerPort = '8080';
    delete broken.spec.selector;
    const [problem, ...others] = schemaProblems([broken]);
    expect(others).toEqual([]);
    expect(problem).toMatch(/^Deployment\/svc-webhooks-api in svc-webhooks: /);
    expect(problem).toContain('data/spec must have required property selector');
    expect(problem).toContain('data/spec/replicas must be integer');
    expect(problem).toContain(
      'data/spec/template/spec/containers/0/resources/limits/memory must match format "quantity"',
    );
    expect(problem).toContain('data/spec/template/spec/containers/0/ports/0/containerPort');
    expect(schemaProblems([productionApi()])).toEqual([]);
  });

  it('reports a Service, an Ingress and a ServiceMonitor that break their schemas', () => {
    const objects = RENDERINGS.find(([name]) => name === 'production')![1];
    const pick = (kind: string) => structuredClone(objects.find((o) => o.kind === kind)!);
    const service = pick('Service');
    service.spec.ports[0].protocol = 'HTTP';
    const ingress = pick('Ingress');
    ingress.spec.rules[0].http.paths[0].pathType = 'Glob';
    const monitor = pick('ServiceMonitor');
    monitor.spec.endpoints[0].interval = 30;
    expect(schemaProblems([service, ingress, monitor]).map((p) => p.split(':')[0])).toEqual([
      describeObject(service),
      describeObject(ingress),
      describeObject(monitor),
    ]);
  });

  it('reports a CloudNativePG Cluster, a Certificate and a StatefulSet that break their schemas', () => {
    const objects = RENDERINGS.find(([name]) => name === 'production')![1];
    const pick = (kind: string) => structuredClone(objects.find((o) => o.kind === kind)!);
    const cluster = pick('Cluster');
    cluster.spec.instances = 'two';
    cluster.spec.minSyncReplica = 1; // misspelt: the CRD's schema knows no such field
    cluster.spec.postgresql.synchronous.method = 'all';
    cluster.spec.postgresql.synchronous.dataDurability = 'strict';
    delete cluster.spec.storage.size;
    cluster.spec.storage.sizee = '50Gi';
    const [problem, ...others] = schemaProblems([cluster]);
    expect(others).toEqual([]);
    expect(problem.split(', ').sort()).toEqual(
      [
        'Cluster/svc-webhooks-pg in svc-webhooks: data/spec must NOT have additional properties (minSyncReplica)',
        'data/spec/instances must be integer',
        'data/spec/postgresql/synchronous/method must be equal to one of the allowed values',
        'data/spec/postgresql/synchronous/dataDurability must be equal to one of the allowed values',
        'data/spec/storage must NOT have additional properties (sizee)',
      ].sort(),
    );
    const certificate = pick('Certificate');
    certificate.spec.usages = ['server-auth'];
    delete certificate.spec.issuerRef;
    const statefulSet = pick('StatefulSet');
    statefulSet.spec.volumeClaimTemplates[0].spec.resources.requests.storage = 'ten gigs';
    expect(schemaProblems([certificate, statefulSet]).map((p) => p.split(':')[0])).toEqual([
      describeObject(certificate),
      describeObject(statefulSet),
    ]);
    expect(schemaProblems([pick('Cluster'), pick('Certificate'), pick('StatefulSet')])).toEqual([]);
  });

  it('reports a container without probes, bounds, non-root, read-only root or a pinned image', () => {
    const broken = productionApi();
    const pod = broken.spec.template.spec;
    delete pod.securityContext.runAsNonRoot;
    const [app] = pod.containers;
    delete app.livenessProbe;
    delete app.readinessProbe;
    delete app.resources.limits.memory;
    delete app.securityContext.runAsNonRoot;
    app.securityContext.readOnlyRootFilesystem = false;
    app.image = 'svc-webhooks:latest';
    const [migrate] = pod.initContainers;
    migrate.image = 'svc-webhooks';
    delete migrate.resources.requests;
    const where = 'Deployment/svc-webhooks-api in svc-webhooks';
    expect(invariantProblems([broken])).toEqual([
      `${where} container api: no memory in resources.limits`,
      `${where} container api: runAsNonRoot is not true (neither the container nor the pod sets it)`,
      `${where} container api: readOnlyRootFilesystem is not true`,
      `${where} container api: image "svc-webhooks:latest" is not pinned (a tag but latest, or a digest)`,
      `${where} container api: no livenessProbe`,
      `${where} container api: no readinessProbe`,
      `${where} init container migrate: no cpu in resources.requests`,
      `${where} init container migrate: no memory in resources.requests`,
      `${where} init container migrate: image "svc-webhooks" is not pinned (a tag but latest, or a digest)`,
    ]);
    // the pod's runAsNonRoot covers its containers; the base's placeholder image only when allowed
    expect(invariantProblems([productionApi()])).toEqual([]);
  });

  it('tells pinned images from unpinned ones', () => {
    const digest = `sha256:${'ab'.repeat(32)}`;
    for (const image of [
      'svc-webhooks:0.1.0',
      'registry.example.com:5000/platform/svc-webhooks:0.1.0',
      `registry.example.com/platform/svc-webhooks@${digest}`,
      `svc-webhooks:0.1.0@${digest}`,
    ]) {
      expect({ image, pinned: pinnedImage(image) }).toEqual({ image, pinned: true });
    }
    for (const image of [
      'svc-webhooks',
      'svc-webhooks:latest',
      'registry.example.com:5000/platform/svc-webhooks',
      'svc-webhooks@sha256:short',
      '',
      undefined,
    ]) {
      expect({ image, pinned: pinnedImage(image) }).toEqual({ image, pinned: false });
    }
  });
});

import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { DEPLOY, filesUnder, KUBERNETES, ROOT, yamlDocuments } from './deploy-files';

/**
 * deploy/kubernetes as files, without kubectl: every manifest parses and is used, kustomizations
 * name files that exist, no Secret is committed, and the workloads of the base (and of the
 * optional migration Job) run hardened, bounded, probed and migrated before they start.
 */

const yamlFiles = filesUnder(DEPLOY, /\.ya?ml$/);
const kustomizations = yamlFiles.filter((file) => /kustomization\.ya?ml$/.test(file));
const MIGRATE_JOB = join(KUBERNETES, 'components/migrate-job');

/** The base's objects and the optional migration Job's: every workload deploy/ defines. */
function baseAndMigrateJob(): any[] {
  return [
    ...filesUnder(join(KUBERNETES, 'base'), /\.ya?ml$/),
    ...filesUnder(MIGRATE_JOB, /\.ya?ml$/),
  ]
    .filter((file) => !kustomizations.includes(file))
    .flatMap(yamlDocuments);
}

/** Environment variable name -> name of the Secret it comes from. */
function secretRefs(container: any): Record<string, string> {
  return Object.fromEntries(
    (container.env ?? [])
      .filter((variable: any) => variable.valueFrom?.secretKeyRef)
      .map((variable: any) => [variable.name, variable.valueFrom.secretKeyRef.name]),
  );
}

describe('deploy/kubernetes structure (no kubectl)', () => {
  it('has a base, a staging and a production overlay', () => {
    for (const directory of ['base', 'overlays/staging', 'overlays/production']) {
      expect(existsSync(join(KUBERNETES, directory, 'kustomization.yaml'))).toBe(true);
    }
  });

  it.each(yamlFiles.map((file) => [relative(ROOT, file), file]))('%s parses', (_, file) => {
    const documents = yamlDocuments(file);
    expect(documents.length).toBeGreaterThan(0);
    for (const document of documents) {
      expect(typeof document.apiVersion).toBe('string');
      expect(typeof document.kind).toBe('string');
    }
  });

  it.each(kustomizations.map((file) => [relative(ROOT, file), file]))(
    '%s lists files that exist',
    (_, file) => {
      const [kustomization] = yamlDocuments(file);
      const directory = dirname(file);
      const references: string[] = [
        ...(kustomization.resources ?? []),
        ...(kustomization.components ?? []),
        ...(kustomization.bases ?? []),
        ...(kustomization.crds ?? []),
        ...(kustomization.patchesStrategicMerge ?? []),
        ...(kustomization.patches ?? []).flatMap((patch: { path?: string }) =>
          patch.path ? [patch.path] : [],
        ),
        ...[
          ...(kustomization.configMapGenerator ?? []),
          ...(kustomization.secretGenerator ?? []),
        ].flatMap((generator: { files?: string[]; envs?: string[] }) => [
          // files entries are "path" or "key=path"
          ...(generator.files ?? []).map((entry) => entry.split('=').pop() as string),
          ...(generator.envs ?? []),
        ]),
      ];
      expect(references.length).toBeGreaterThan(0);
      const missing = references.filter((reference) => {
        const target = resolve(directory, reference);
        if (!existsSync(target)) return true;
        return (
          statSync(target).isDirectory() &&
          !['kustomization.yaml', 'kustomization.yml', 'Kustomization'].some((name) =>
            existsSync(join(target, name)),
          )
        );
      });
      expect(missing).toEqual([]);
    },
  );

  it('uses every manifest under deploy/kubernetes in some kustomization', () => {
    const referenced = new Set<string>();
    for (const file of kustomizations.filter((path) => path.startsWith(KUBERNETES))) {
      const [kustomization] = yamlDocuments(file);
      for (const entry of [
        ...(kustomization.resources ?? []),
        ...(kustomization.patches ?? []).map((patch: { path?: string }) => patch.path),
      ]) {
        if (typeof entry === 'string') referenced.add(resolve(dirname(file), entry));
      }
    }
    const manifests = yamlFiles.filter(
      (file) => file.startsWith(KUBERNETES) && !kustomizations.includes(file),
    );
    expect(manifests.filter((file) => !referenced.has(file)).map((f) => relative(ROOT, f))).toEqual(
      [],
    );
  });

  it('commits no Secret and reads DATABASE_URL and SECRET_ENCRYPTION_KEY from svc-webhooks-secrets', () => {
    const objects = yamlFiles.flatMap(yamlDocuments);
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    for (const kustomization of kustomizations.map((file) => yamlDocuments(file)[0])) {
      expect(kustomization.secretGenerator ?? []).toEqual([]);
    }
    const workloads = baseAndMigrateJob().filter((object) =>
      ['Deployment', 'Job'].includes(object.kind),
    );
    expect(workloads.map((object) => object.metadata.name).sort()).toEqual([
      'svc-webhooks-api',
      'svc-webhooks-auth',
      'svc-webhooks-delivery',
      'svc-webhooks-migrate',
    ]);
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect(secretRefs(container)).toMatchObject({
          DATABASE_URL: 'svc-webhooks-secrets',
          SECRET_ENCRYPTION_KEY: 'svc-webhooks-secrets',
        });
        expect(
          (container.env ?? []).filter((variable: any) => variable.value !== undefined),
        ).toEqual([]);
      }
    }
  });

  it('runs every container hardened, bounded and probed', () => {
    const base = baseAndMigrateJob();
    const workloads = base.filter((object) => ['Deployment', 'Job'].includes(object.kind));
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const where = `${workload.metadata.name}/${container.name}`;
        expect({ where, image: container.image }).toEqual({ where, image: 'svc-webhooks' });
        expect(container.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
        expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'memory']);
      }
      for (const container of pod.containers) {
        if (workload.kind === 'Deployment') {
          // node, any of its own options (the engine's heap cap), then the app.
          expect(container.command[0]).toBe('node');
          expect(container.command.at(-1)).toBe(`dist/apps/${container.name}/src/main.js`);
          expect(container.command.slice(1, -1).every((arg: string) => arg.startsWith('--'))).toBe(
            true,
          );
          expect(container.livenessProbe.httpGet.path).toBe('/healthz');
          expect(container.readinessProbe.httpGet.path).toBe('/readyz');
          // Probes and scrapes use the management port, which no public Service exposes.
          for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
            expect(container[probe].httpGet.port).toBe('management');
          }
        } else {
          expect(container.command.slice(0, 3)).toEqual([
            'node',
            'dist/apps/cli/src/main.js',
            'migrate',
          ]);
        }
      }
    }
    for (const service of base.filter((object) => object.kind === 'Service')) {
      const names = service.spec.ports.map((port: any) => port.name);
      expect({ service: service.metadata.name, names }).toEqual({
        service: service.metadata.name,
        names:
          service.metadata.name.endsWith('-management') ||
          service.metadata.name === 'svc-webhooks-delivery'
            ? ['management']
            : ['http'],
      });
    }
    const budgets = base.filter((object) => object.kind === 'PodDisruptionBudget');
    expect(budgets.map((budget) => budget.metadata.name)).toEqual(
      expect.arrayContaining(['svc-webhooks-api', 'svc-webhooks-delivery']),
    );
  });

  it('migrates in an init container of every app pod, as the migration Job does', () => {
    const objects = baseAndMigrateJob();
    const [job] = objects.filter((object) => object.kind === 'Job');
    const [jobContainer] = job.spec.template.spec.containers;
    const deployments = objects.filter((object) => object.kind === 'Deployment');
    expect(deployments).toHaveLength(3);
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      const [app] = pod.containers;
      const where = deployment.metadata.name;
      expect({ where, init: (pod.initContainers ?? []).map((c: any) => c.name) }).toEqual({
        where,
        init: ['migrate'],
      });
      const [migrate] = pod.initContainers;
      expect(migrate.command).toEqual(['node', 'dist/apps/cli/src/main.js', 'migrate', '--json']);
      expect(migrate.command).toEqual(jobContainer.command);
      expect(migrate.image).toBe(app.image);
      expect(migrate.envFrom).toEqual(app.envFrom);
      expect(secretRefs(migrate)).toEqual(secretRefs(jobContainer));
      expect(migrate.securityContext).toEqual(app.securityContext);
      expect(migrate.resources).toEqual(jobContainer.resources);
      expect(migrate.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
      // a plain init container: it runs to completion before the app starts (no sidecar, no probe)
      expect(migrate.restartPolicy).toBeUndefined();
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        expect(migrate[probe]).toBeUndefined();
      }
    }
  });

  it('keeps the migration Job out of the overlays (an optional component)', () => {
    const [component] = yamlDocuments(join(MIGRATE_JOB, 'kustomization.yaml'));
    expect(component.kind).toBe('Component');
    for (const overlay of ['staging', 'production']) {
      const [kustomization] = yamlDocuments(
        join(KUBERNETES, 'overlays', overlay, 'kustomization.yaml'),
      );
      expect(kustomization.components ?? []).not.toContain('../../components/migrate-job');
    }
  });

  it.each(['staging', 'production'])('the %s overlay sets the image tag and NODE_ENV', (name) => {
    const [kustomization] = yamlDocuments(join(KUBERNETES, 'overlays', name, 'kustomization.yaml'));
    expect(kustomization.images).toEqual([
      expect.objectContaining({ name: 'svc-webhooks', newTag: expect.any(String) }),
    ]);
    const config = kustomization.configMapGenerator.find(
      (generator: { name: string }) => generator.name === 'svc-webhooks-config',
    );
    expect(config.literals).toContain('NODE_ENV=production');
    expect(kustomization.replicas.length).toBeGreaterThan(0);
  });
});

import { describeObject } from './kubernetes-schemas';
import type { K8sObject } from './kustomize-lite';

/**
 * What every workload deploy/ renders must keep, whatever an overlay patches: each container
 * (init containers too) has resource requests and limits for CPU and memory, runs as non-root
 * (its own securityContext or the pod's) on a read-only root filesystem, and names a pinned image
 * (a tag other than `latest`, or a sha256 digest); each container of a long-running workload
 * (Deployment, StatefulSet, DaemonSet) has a liveness and a readiness probe. Jobs run to
 * completion and init containers cannot have probes, so neither needs one.
 */

const LONG_RUNNING = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
/** name[:tag] or name@sha256:digest, the registry allowed a port (host:5000/name:tag). */
const PINNED_IMAGE = /^[^@\s]+?(?::[\w][\w.-]{0,127}|@sha256:[0-9a-f]{64})$/;

export interface InvariantOptions {
  /**
   * The base names its image by a placeholder that each overlay pins (kustomize `images`): where
   * given, an image exactly equal to it is accepted unpinned.
   */
  imagePlaceholder?: string;
}

function podSpec(object: K8sObject): K8sObject | undefined {
  return object.spec?.template?.spec ?? object.spec?.jobTemplate?.spec?.template?.spec;
}

/** Whether `image` is pinned: by digest, or by a tag that is not `latest`. */
export function pinnedImage(image: unknown): boolean {
  if (typeof image !== 'string' || !PINNED_IMAGE.test(image)) return false;
  if (image.includes('@sha256:')) return true;
  const tag = image.slice(image.lastIndexOf(':') + 1);
  // a colon inside the registry part (host:5000/name) is no tag
  return !tag.includes('/') && tag !== 'latest';
}

/** Every broken invariant of `objects`, as "Kind/name container: problem". */
export function invariantProblems(objects: K8sObject[], options: InvariantOptions = {}): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    const pod = podSpec(object);
    if (!pod) continue;
    const podContext = pod.securityContext ?? {};
    const containers: [K8sObject, boolean][] = [
      ...(pod.containers ?? []).map((container: K8sObject): [K8sObject, boolean] => [
        container,
        false,
      ]),
      ...(pod.initContainers ?? []).map((container: K8sObject): [K8sObject, boolean] => [
        container,
        true,
      ]),
    ];
    if (containers.length === 0) problems.push(`${describeObject(object)}: no container`);
    for (const [container, init] of containers) {
      const where = `${describeObject(object)} ${init ? 'init container' : 'container'} ${container.name}`;
      const report = (problem: string) => problems.push(`${where}: ${problem}`);
      for (const bound of ['requests', 'limits']) {
        for (const resource of ['cpu', 'memory']) {
          if (container.resources?.[bound]?.[resource] === undefined) {
            report(`no ${resource} in resources.${bound}`);
          }
        }
      }
      const context = container.securityContext ?? {};
      if ((context.runAsNonRoot ?? podContext.runAsNonRoot) !== true) {
        report('runAsNonRoot is not true (neither the container nor the pod sets it)');
      }
      if ((context.runAsUser ?? podContext.runAsUser) === 0) report('runs as uid 0');
      if (context.readOnlyRootFilesystem !== true) report('readOnlyRootFilesystem is not true');
      if (
        !pinnedImage(container.image) &&
        !(options.imagePlaceholder !== undefined && container.image === options.imagePlaceholder)
      ) {
        report(
          `image ${JSON.stringify(container.image)} is not pinned (a tag but latest, or a digest)`,
        );
      }
      if (!init && LONG_RUNNING.has(object.kind)) {
        for (const probe of ['livenessProbe', 'readinessProbe']) {
          if (!container[probe]) report(`no ${probe}`);
        }
      }
    }
  }
  return problems;
}

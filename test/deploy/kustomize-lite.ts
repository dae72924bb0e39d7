import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * A small kustomize for the tests (kustomize itself is not installed): renders a kustomization
 * with exactly the features deploy/kubernetes uses: resources (files and folders), components,
 * configMapGenerator literals (with behavior: merge), namespace, labels, images, replicas and
 * patches given by path (strategic merge: maps merged, lists of named items merged by name, a
 * target's kind and labelSelector honoured). Anything else in a kustomization is refused, so a
 * new feature cannot silently go unrendered.
 */
export type K8sObject = Record<string, any>;

const KNOWN = new Set([
  'apiVersion',
  'kind',
  'resources',
  'components',
  'configMapGenerator',
  'namespace',
  'labels',
  'images',
  'replicas',
  'patches',
]);

function documents(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => document.toJS())
    .filter((value) => value != null);
}

function kustomizationIn(directory: string): K8sObject {
  const [kustomization] = documents(join(directory, 'kustomization.yaml'));
  const unknown = Object.keys(kustomization).filter((key) => !KNOWN.has(key));
  if (unknown.length > 0) {
    throw new Error(`${directory}: kustomize-lite does not render ${unknown.join(', ')}`);
  }
  return kustomization;
}

export function strategicMerge(target: any, patch: any): any {
  if (Array.isArray(patch)) {
    if (!Array.isArray(target) || !patch.every((item) => item && typeof item.name === 'string')) {
      return patch;
    }
    const merged = target.map((item: any) => {
      const match = patch.find((candidate: any) => candidate.name === item.name);
      return match ? strategicMerge(item, match) : item;
    });
    for (const item of patch) {
      if (!target.some((existing: any) => existing.name === item.name)) merged.push(item);
    }
    return merged;
  }
  if (patch && typeof patch === 'object') {
    const result = { ...(target ?? {}) };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      result[key] = value === null ? undefined : strategicMerge(result[key], value);
      if (result[key] === undefined) delete result[key];
    }
    return result;
  }
  return patch;
}

function matchesSelector(object: K8sObject, selector: string | undefined): boolean {
  if (!selector) return true;
  return selector.split(',').every((pair) => {
    const [key, value] = pair.split('=');
    return object.metadata?.labels?.[key] === value;
  });
}

function configMapFrom(generator: K8sObject): K8sObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: generator.name },
    data: Object.fromEntries(
      (generator.literals ?? []).map((literal: string) => {
        const at = literal.indexOf('=');
        return [literal.slice(0, at), literal.slice(at + 1)];
      }),
    ),
  };
}

function applyKustomization(
  directory: string,
  objects: K8sObject[],
  extraComponents: string[] = [],
  extraFirst = false,
): K8sObject[] {
  const kustomization = kustomizationIn(directory);
  const own = (kustomization.components ?? []).map((entry: string) => resolve(directory, entry));
  for (const entry of kustomization.resources ?? []) {
    const path = resolve(directory, entry);
    objects.push(
      ...(statSync(path).isDirectory() ? applyKustomization(path, []) : documents(path)),
    );
  }
  for (const component of extraFirst
    ? [...extraComponents, ...own]
    : [...own, ...extraComponents]) {
    objects = applyKustomization(component, objects);
  }
  for (const generator of kustomization.configMapGenerator ?? []) {
    const generated = configMapFrom(generator);
    const existing = objects.find(
      (object) => object.kind === 'ConfigMap' && object.metadata.name === generator.name,
    );
    if (generator.behavior === 'merge') {
      if (!existing) throw new Error(`${directory}: nothing to merge into ${generator.name}`);
      existing.data = { ...existing.data, ...generated.data };
    } else {
      objects.push(generated);
    }
  }
  for (const patch of kustomization.patches ?? []) {
    for (const patchObject of documents(resolve(directory, patch.path))) {
      const kind = patch.target?.kind ?? patchObject.kind;
      objects = objects.map((object) =>
        object.kind === kind &&
        (patch.target ? true : object.metadata.name === patchObject.metadata?.name) &&
        matchesSelector(object, patch.target?.labelSelector)
          ? strategicMerge(object, { ...patchObject, metadata: undefined })
          : object,
      );
    }
  }
  for (const { name, count } of kustomization.replicas ?? []) {
    objects
      .filter((object) => object.metadata.name === name && object.spec?.replicas !== undefined)
      .forEach((object) => (object.spec.replicas = count));
  }
  for (const image of kustomization.images ?? []) {
    for (const object of objects) {
      const pod = object.spec?.template?.spec ?? object.spec?.jobTemplate?.spec?.template?.spec;
      for (const container of [...(pod?.containers ?? []), ...(pod?.initContainers ?? [])]) {
        const [name] = container.image.split(':');
        if (name === image.name) {
          container.image = `${image.newName ?? image.name}:${image.newTag}`;
        }
      }
    }
  }
  for (const { pairs } of kustomization.labels ?? []) {
    for (const object of objects) {
      object.metadata.labels = { ...object.metadata.labels, ...pairs };
    }
  }
  if (kustomization.namespace) {
    for (const object of objects) object.metadata.namespace = kustomization.namespace;
  }
  return objects;
}

/**
 * The objects `kustomize build <directory>` would print (without generated-name hashes);
 * `components` (absolute directories) are added to the kustomization's own, as if it listed them
 * after its own (or before them, with `first`: components apply in order, so a component's patch
 * reaches only the objects listed before it).
 */
export function render(
  directory: string,
  components: string[] = [],
  { first = false }: { first?: boolean } = {},
): K8sObject[] {
  return applyKustomization(directory, [], components, first).map((object) =>
    structuredClone(object),
  );
}

export { dirname };

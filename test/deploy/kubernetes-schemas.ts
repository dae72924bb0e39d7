import { Certificate } from '@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate';
import { Issuer } from '@kubernetes-models/cert-manager/cert-manager.io/v1/Issuer';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { CRD_MODELS } from './crd-schemas';
import type { K8sObject } from './kustomize-lite';

/**
 * The Kubernetes (and Prometheus Operator, cert-manager) schemas of what deploy/ renders, from the
 * npm packages kubernetes-models, @kubernetes-models/prometheus-operator and
 * @kubernetes-models/cert-manager: each model class validates its
 * object against the OpenAPI schema of the API version it is named after (types, enums, formats
 * such as quantities, required fields). Only the kinds deploy/ uses are mapped: any other kind or
 * API version is refused, so a new kind cannot go unvalidated. Note: these schemas, like
 * Kubernetes's OpenAPI documents, do not forbid unknown fields; `kubectl apply` (server-side
 * field validation, strict by default) refuses those at apply time. Custom resources without an
 * npm model (the CloudNativePG Cluster) are checked against their CRD's schema, committed in
 * test/deploy/schemas (crd-schemas.ts), which does refuse unknown fields.
 */
type Model = new (data: any) => { validate(): void };

const MODELS: Record<string, Model> = Object.fromEntries(
  [
    ConfigMap,
    Service,
    ServiceAccount,
    Deployment,
    StatefulSet,
    Job,
    PodDisruptionBudget,
    HorizontalPodAutoscaler,
    NetworkPolicy,
    Ingress,
    ServiceMonitor,
    PodMonitor,
    PrometheusRule,
    Issuer,
    Certificate,
  ].map((model) => [`${model.apiVersion} ${model.kind}`, model as unknown as Model]),
);
Object.assign(MODELS, CRD_MODELS);

/** The kinds this module can validate, as "apiVersion kind". */
export const VALIDATED_KINDS = Object.keys(MODELS).sort();

/** `kind/name` (and namespace) of an object, for messages. */
export function describeObject(object: K8sObject): string {
  const name = object.metadata?.name ?? '(no name)';
  const namespace = object.metadata?.namespace ? ` in ${object.metadata.namespace}` : '';
  return `${object.kind}/${name}${namespace}`;
}

/**
 * What the schema of `object`'s apiVersion and kind says is wrong with it, as one message per
 * object; empty when it is valid. An apiVersion and kind without a model is a problem too.
 */
export function schemaProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    const model = MODELS[`${object.apiVersion} ${object.kind}`];
    if (!model) {
      problems.push(
        `${describeObject(object)}: unknown kind "${object.kind}" of apiVersion "${object.apiVersion}" (no schema to validate it against)`,
      );
      continue;
    }
    try {
      new model(structuredClone(object)).validate();
    } catch (error) {
      problems.push(`${describeObject(object)}: ${(error as Error).message}`);
    }
  }
  return problems;
}

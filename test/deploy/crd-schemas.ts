import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Custom resources no npm package has a model for, checked against the OpenAPI schema of their
 * CustomResourceDefinition, committed in test/deploy/schemas (schemas/README.md says where each
 * comes from). Stricter than the kubernetes-models schemas in one way, on purpose: an object's
 * unknown fields are refused (except under x-kubernetes-preserve-unknown-fields), as the API
 * server refuses them for a custom resource with `kubectl apply` (strict field validation), so a
 * misspelt field (minSyncReplica) fails here rather than at apply time. The CEL rules of a CRD
 * (x-kubernetes-validations) are not evaluated.
 */
type Schema = Record<string, any>;

const SCHEMAS = join(__dirname, 'schemas');

/** Every object schema with properties refuses other keys, as structural CRD schemas do. */
export function closeObjects(schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map(closeObjects);
  if (schema === null || typeof schema !== 'object') return schema;
  const closed: Schema = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as Schema).map(([name, s]) => [name, closeObjects(s)]),
          )
        : closeObjects(value),
    ]),
  );
  if (
    closed.properties &&
    closed.additionalProperties === undefined &&
    closed['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    closed.additionalProperties = false;
  }
  return closed;
}

/** The root of a custom resource: apiVersion, kind and metadata are the API server's to check. */
function rootOpen(schema: Schema): Schema {
  return { ...schema, properties: { ...schema.properties, metadata: { type: 'object' } } };
}

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

function compile(file: string): ValidateFunction {
  const schema = JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8'));
  return ajv.compile(rootOpen(closeObjects(schema)));
}

/** "apiVersion kind" -> the committed schema's file. */
const CRD_SCHEMA_FILES: Record<string, string> = {
  'postgresql.cnpg.io/v1 Cluster': 'postgresql.cnpg.io_v1_Cluster.json',
};

const compiled = new Map<string, ValidateFunction>();

/** A model-like class per custom resource kind, for kubernetes-schemas.ts's table. */
export const CRD_MODELS = Object.fromEntries(
  Object.entries(CRD_SCHEMA_FILES).map(([key, file]) => {
    const model = class {
      constructor(private readonly data: unknown) {}
      validate(): void {
        if (!compiled.has(key)) compiled.set(key, compile(file));
        const check = compiled.get(key)!;
        if (!check(this.data)) {
          throw new Error(
            (check.errors ?? [])
              .map((error) => {
                const extra = error.params?.additionalProperty;
                return `data${error.instancePath} ${error.message}${extra ? ` (${extra})` : ''}`;
              })
              .join(', '),
          );
        }
      }
    };
    return [key, model];
  }),
);

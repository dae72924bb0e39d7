import { z } from 'zod';
import { ConfigError } from './config-error';

/** What docs/configuration.md says of one environment variable (tools/docs). */
export interface SettingDoc {
  /** As a person would write it (`30s`, not 30000), or `none`, `empty`, `(required)`. */
  default: string;
  /** The values it takes: a range, a format, a list of choices. */
  format: string;
  /** One line: what it does. */
  meaning: string;
}

/** One environment variable: its schema (the default applied) and its documentation. */
export interface Setting<T extends z.ZodType = z.ZodType> {
  schema: T;
  doc: SettingDoc;
}

export type Settings = Record<string, Setting>;

type Values<V extends Settings> = { [K in keyof V]: z.output<V[K]['schema']> };

/**
 * A part of the configuration that an app loads whole or not at all: its variables, the checks
 * between them, and the part of the typed configuration it builds (`{ http: { ... } }`). A
 * variable may belong to several sections (NODE_ENV, which the secrets also depend on).
 */
export interface Section<T> {
  readonly name: string;
  readonly variables: Settings;
  /** The section's part of the configuration, or every problem of its variables, by name. */
  read(env: NodeJS.ProcessEnv): { value: T; problems?: undefined } | { problems: string[] };
}

export interface SectionDefinition<V extends Settings, T> {
  name: string;
  variables: V;
  /** Problems between variables (each has passed its own schema), as `NAME: what is wrong`. */
  check?: (values: Values<V>) => string[];
  build: (values: Values<V>) => T;
}

export function section<V extends Settings, T>(definition: SectionDefinition<V, T>): Section<T> {
  const schema = z.object(
    Object.fromEntries(Object.entries(definition.variables).map(([name, s]) => [name, s.schema])),
  );
  return {
    name: definition.name,
    variables: definition.variables,
    read(env) {
      const parsed = schema.safeParse(env);
      if (!parsed.success) {
        return {
          problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
        };
      }
      const values = parsed.data as Values<V>;
      const problems = definition.check?.(values) ?? [];
      return problems.length > 0 ? { problems } : { value: definition.build(values) };
    },
  };
}

type OutputOf<S> = S extends Section<infer T> ? T : never;
type Intersection<U> = (U extends unknown ? (part: U) => void : never) extends (
  whole: infer I,
) => void
  ? I
  : never;
type Flat<T> = T extends unknown[] ? T : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;

/** The configuration the sections build together: `{ http: ..., ports: { api } }`. */
export type ConfigOf<L extends readonly Section<unknown>[]> = Flat<
  Intersection<OutputOf<L[number]>>
>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function merge(into: Record<string, unknown>, part: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(part)) {
    const existing = into[key];
    if (isPlainObject(existing) && isPlainObject(value)) {
      merge(existing, value);
    } else {
      into[key] = isPlainObject(value) ? { ...value } : value;
    }
  }
}

/**
 * Reads the sections from the environment and merges their parts into one configuration. Every
 * problem of every section is reported at once, each named by its variable (ConfigError).
 */
export function loadSections<const L extends readonly Section<unknown>[]>(
  sections: L,
  env: NodeJS.ProcessEnv,
): ConfigOf<L> {
  const problems = new Set<string>();
  const config: Record<string, unknown> = {};
  // A section listed twice (the whole configuration joins the apps' lists) is read once.
  for (const part of new Set(sections)) {
    const result = part.read(env);
    if (result.problems) {
      result.problems.forEach((problem) => problems.add(problem));
    } else if (isPlainObject(result.value)) {
      merge(config, result.value);
    }
  }
  if (problems.size > 0) {
    throw new ConfigError([...problems]);
  }
  return config as ConfigOf<L>;
}

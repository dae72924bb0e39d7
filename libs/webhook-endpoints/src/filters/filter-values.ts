/** A JSON object of a filter: a record with the plain prototype JSON.parse gives it. */
export type JsonRecord = Readonly<Record<string, unknown>>;

/** Whether a filter's value is a JSON object (not an array, null, or an instance of a class). */
export function isJsonRecord(value: unknown): value is JsonRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The field `name` of an envelope's value, or undefined when missing. Own properties only, so that
 * `__proto__`, `constructor` or `toString` never reach Object.prototype; and objects only, so that
 * an array's `length` or a string's characters are not fields.
 */
export function fieldOf(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `filter.data.severity`, or `filter.data["device.name"]` when a dot would mislead. */
export function fieldPath(parent: string, name: string): string {
  return PLAIN_NAME.test(name) ? `${parent}.${name}` : `${parent}[${JSON.stringify(name)}]`;
}

export function operatorPath(parent: string, operator: string): string {
  return `${parent}.${operator}`;
}

export function itemPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

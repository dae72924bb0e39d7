import ms from 'ms';
import * as ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { Setting, SettingDoc } from './section';

/**
 * The kinds of value the environment variables take: each a schema with its default applied and
 * the default and format as docs/configuration.md shows them. `setting` adds the meaning.
 */
export interface Kind<T extends z.ZodType> {
  schema: T;
  default: string;
  format: string;
}

export function setting<T extends z.ZodType>(
  kind: Kind<T>,
  meaning: string,
  doc: Partial<Omit<SettingDoc, 'meaning'>> = {},
): Setting<T> {
  return {
    schema: kind.schema,
    doc: { default: kind.default, format: kind.format, meaning, ...doc },
  };
}

const code = (value: string | number) => `\`${value}\``;

export function choice<const V extends readonly [string, ...string[]]>(
  values: V,
  fallback: V[number],
) {
  return {
    schema: z.enum(values).default(fallback),
    default: code(fallback),
    format: `${values.slice(0, -1).map(code).join(', ')} or ${code(values[values.length - 1])}`,
  };
}

export function text(fallback: string) {
  return { schema: z.string().min(1).default(fallback), default: code(fallback), format: 'text' };
}

export function optionalText(format = 'text') {
  return { schema: z.string().min(1).optional(), default: 'none', format };
}

export function integer(fallback: number, min: number, max: number) {
  return {
    schema: z.coerce.number().int().min(min).max(max).default(fallback),
    default: code(fallback),
    format: `integer, ${min} to ${max}`,
  };
}

export const port = (fallback: number) => integer(fallback, 0, 65535);

/** A share such as 0.5: more than 0, at most 1. */
export function share(fallback: number) {
  return {
    schema: z.coerce
      .number()
      .gt(0, 'must be more than 0')
      .max(1, 'must be at most 1')
      .default(fallback),
    default: code(fallback),
    format: 'number above 0, at most 1',
  };
}

/** Names of JetStream objects (streams, consumers). */
export function objectName(fallback: string) {
  return {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default(fallback),
    default: code(fallback),
    format: 'letters, digits, `_` and `-`',
  };
}

const commaList = () =>
  z
    .string()
    .default('')
    .transform((raw) =>
      raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    );

export function list(fallback: string[], format: string) {
  return { schema: commaList().default(fallback), default: code(fallback.join(',')), format };
}

export function cidrs() {
  return {
    schema: commaList().superRefine((items, ctx) => {
      for (const item of items) {
        if (!ipaddr.isValidCIDR(item)) {
          ctx.addIssue({
            code: 'custom',
            message: `"${item}" is not a CIDR range such as 127.0.0.0/8`,
          });
        }
      }
    }),
    default: 'empty',
    format: 'CIDR ranges, comma-separated',
  };
}

const base64Key = () =>
  z.string().refine((value) => Buffer.from(value, 'base64').length === 32, {
    message: 'must be 32 bytes encoded in base64 (generate one with `openssl rand -base64 32`)',
  });

export function encryptionKey() {
  return { schema: base64Key().optional(), default: 'none', format: '32 bytes in base64' };
}

export function encryptionKeys() {
  return {
    schema: commaList().pipe(z.array(base64Key())),
    default: 'empty',
    format: 'keys of 32 bytes in base64, comma-separated',
  };
}

const DURATION_FORMAT = 'duration: `500ms`, `10s`, `5m`, `2h`, `1d`';

/** A duration such as `500ms`, `5s`, `30m` or `2h`, in milliseconds. */
const durationSchema = () =>
  z.string().transform((raw, ctx) => {
    const value = /^\d+(\.\d+)?\s*(ms|s|m|h|d)$/.test(raw.trim())
      ? ms(raw.trim() as ms.StringValue)
      : NaN;
    if (!Number.isFinite(value) || value <= 0) {
      ctx.addIssue({
        code: 'custom',
        message: `"${raw}" is not a duration such as 500ms, 5s, 30m or 2h`,
      });
      return z.NEVER;
    }
    return value;
  });

export function duration(fallback: string) {
  return {
    schema: durationSchema().prefault(fallback),
    default: code(fallback),
    format: DURATION_FORMAT,
  };
}

export function durations(fallback: string) {
  return {
    schema: z
      .string()
      .prefault(fallback)
      .transform((raw) => raw.split(',').map((item) => item.trim()))
      .pipe(z.array(durationSchema()).min(1, 'must list at least one duration')),
    default: code(fallback),
    format: 'durations, comma-separated',
  };
}

export function url(fallback: string) {
  return { schema: z.url().default(fallback), default: code(fallback), format: 'URL' };
}

export function optionalUrl() {
  return { schema: z.url().optional(), default: 'none', format: 'URL' };
}

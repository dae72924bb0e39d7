import { applyDecorators, ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { FieldError, problems } from './problems/problem-details';

/** NUL, or a UTF-16 surrogate without its pair: neither can be stored in PostgreSQL text or jsonb. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this finds
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether a string can reach the event log (PostgreSQL jsonb): no NUL, no lone surrogate. */
export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** Field names are shown back to the client: never with the characters that were refused. */
function printable(name: string): string {
  return name.replace(new RegExp(UNSTORABLE.source, 'g'), '\ufffd');
}

/**
 * Every string of a request (values and object keys, at any depth) that could not be stored,
 * named as the validation errors name fields (`events.1`). Runs before any other rule, for every
 * body, query and path parameter (issue 17): a value nothing else checks still reaches the log.
 */
export function unstorableStrings(value: unknown, field: string): FieldError[] {
  if (typeof value === 'string') {
    return isStorableText(value)
      ? []
      : [
          {
            field: printable(field),
            detail: 'must not contain NUL or unpaired surrogate characters',
          },
        ];
  }
  if (typeof value !== 'object' || value === null) {
    return [];
  }
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value as Record<string, unknown>);
  return entries.flatMap(([key, item]) => {
    const path = field ? `${field}.${key}` : key;
    return isStorableText(key)
      ? unstorableStrings(item, path)
      : [
          {
            field: printable(path),
            detail: 'must not contain NUL or unpaired surrogate characters',
          },
        ];
  });
}

/**
 * RFC 3339 date-time (ISO 8601 extended format with a time zone): `2026-01-31T12:00:00Z`,
 * `2026-01-31T13:00:00.5+01:00`. The one parser of every date input of the API.
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The instant an RFC 3339 date-time names, or null for anything else (a real day and time only). */
export function parseInstant(text: string): Date | null {
  const match = RFC3339.exec(text);
  if (!match) {
    return null;
  }
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const fraction = match[7] ?? '';
  const [sign, offsetHours, offsetMinutes] = [
    match[9],
    Number(match[10] ?? 0),
    Number(match[11] ?? 0),
  ];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
    return null;
  }
  if (offsetHours > 23 || offsetMinutes > 59) {
    return null;
  }
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth || year < 1) {
    return null;
  }
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, Number(fraction.padEnd(3, '0').slice(0, 3)));
  const offset = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  const instant = new Date(local.getTime() - offset * 60_000);
  return Number.isNaN(instant.getTime()) ? null : instant;
}

const INSTANT_RULE = 'must be an RFC 3339 date-time with a time zone, such as 2026-01-31T12:00:00Z';

/**
 * A date-time field: parsed once, by `parseInstant`, into a Date; anything it cannot turn into an
 * instant is a 400 naming the field. The handler receives a valid Date.
 */
export function IsInstant(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? (parseInstant(value) ?? value) : value,
    ),
    ValidateBy({
      name: 'isInstant',
      validator: {
        validate: (value: unknown) => value instanceof Date && !Number.isNaN(value.getTime()),
        defaultMessage: () => INSTANT_RULE,
      },
    }),
  );
}

/** Flattens class-validator's tree into one entry per offending field, such as `events.1`. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((detail) => ({ field, detail }));
    return [...own, ...toFieldErrors(error.children ?? [], field)];
  });
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Request validation: the first broken rule of each field (not every rule it then also breaks),
 * unknown fields refused rather than ignored so that a typo never silently drops a setting, and
 * a body that is not a JSON object named as such.
 */
class RequestValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // No body at all reads as an empty object: its required fields are then named one by one.
    const body = metadata.type === 'body' && value === undefined ? {} : value;
    if (metadata.type === 'body' && !isJsonObject(body)) {
      throw problems.invalidRequest([{ field: '(body)', detail: 'must be a JSON object' }]);
    }
    if (metadata.type !== 'custom') {
      const unstorable = unstorableStrings(
        body,
        metadata.type === 'param' ? (metadata.data ?? '') : '',
      );
      if (unstorable.length > 0) {
        throw problems.invalidRequest(unstorable);
      }
    }
    return super.transform(body, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new RequestValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => problems.invalidRequest(toFieldErrors(errors)),
  });
}

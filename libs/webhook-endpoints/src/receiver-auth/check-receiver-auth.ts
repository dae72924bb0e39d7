import { fieldPath } from '../filters/filter-values';
import {
  canonicalEndpointUrl,
  checkEndpointUrl,
  ENDPOINT_URL_MAX_LENGTH,
  PrivateNetworkAllowList,
} from '../rules/endpoint-url';
import { RuleViolation } from '../rules/rule-violation';
import { checkClientCertificate } from './client-certificate';
import {
  RECEIVER_AUTH_TYPES,
  ReceiverAuth,
  ReceiverAuthType,
  OAuthClientCredentialsAuth,
} from './receiver-auth';
import { refusedHeaderReason } from './refused-header-names';

/** At most this many headers in a `headers` auth (ADR 0048). */
export const MAX_AUTH_HEADERS = 10;
export const AUTH_HEADER_NAME_MAX_LENGTH = 64;
export const AUTH_HEADER_VALUE_MAX_LENGTH = 4096;
/** username, client_id, scope, audience. */
export const AUTH_NAME_MAX_LENGTH = 256;
/** password, client_secret. */
export const AUTH_SECRET_MAX_LENGTH = 1024;
/** certificate (with its intermediates) and private_key, each. */
export const AUTH_PEM_MAX_LENGTH = 64 * 1024;

/** The fields of each type besides `type`; a `?` marks an optional one. */
const FIELDS: Record<ReceiverAuthType, readonly string[]> = {
  headers: ['headers'],
  basic: ['username', 'password'],
  oauth2_client_credentials: ['token_url', 'client_id', 'client_secret', 'scope?', 'audience?'],
  mtls: ['certificate', 'private_key'],
};

/** RFC 9110 5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 5.5, kept to ASCII: visible characters, with spaces and tabs only between them. */
const HEADER_VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/;
/** C0 and C1 controls and DEL, and lone surrogates (which UTF-8 cannot carry). */
const CONTROL_OR_LONE_SURROGATE = /[\p{Cc}\p{Cs}]/u;
/** PEM text: printable ASCII and line breaks. */
const PEM_TEXT = /^[\x20-\x7e\r\n\t]*$/;

type Record_ = Readonly<Record<string, unknown>>;
type Checked<T> = { value: T; violations: RuleViolation[] };

function isRecord(value: unknown): value is Record_ {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A checked string field's value (anything else only where a violation was already found). */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function field(record: Record_, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/**
 * A string that is present, not empty, at most `max` characters and free of control characters.
 * Details never quote the value: it may be a secret.
 */
function checkText(value: unknown, path: string, max: number, pem = false): RuleViolation[] {
  if (value === undefined || value === null) {
    return [{ field: path, detail: 'is required' }];
  }
  if (typeof value !== 'string') {
    return [{ field: path, detail: 'must be a string' }];
  }
  if (value.length === 0) {
    return [{ field: path, detail: 'must not be empty' }];
  }
  if (value.length > max) {
    return [{ field: path, detail: `must be at most ${max} characters` }];
  }
  if (pem) {
    return PEM_TEXT.test(value)
      ? []
      : [
          {
            field: path,
            detail: 'must be PEM text: printable ASCII characters and line breaks only',
          },
        ];
  }
  if (CONTROL_OR_LONE_SURROGATE.test(value)) {
    return [
      {
        field: path,
        detail:
          'must not contain control characters (such as NUL, tab, CR or LF) or invalid Unicode',
      },
    ];
  }
  return [];
}

/** `auth.headers.X-Api-Key`; a name that is not a token is quoted (`auth.headers["a b"]`). */
function headerPath(name: string): string {
  return TOKEN.test(name) ? `auth.headers.${name}` : `auth.headers[${JSON.stringify(name)}]`;
}

function checkHeaderName(name: string, firstBySpelling: Map<string, string>): RuleViolation[] {
  const path = headerPath(name);
  if (name.length === 0 || !TOKEN.test(name)) {
    return [
      {
        field: path,
        detail: "is not a valid header name: letters, digits and !#$%&'*+.^_`|~- only (RFC 9110)",
      },
    ];
  }
  if (name.length > AUTH_HEADER_NAME_MAX_LENGTH) {
    return [
      { field: path, detail: `must be at most ${AUTH_HEADER_NAME_MAX_LENGTH} characters long` },
    ];
  }
  const lower = name.toLowerCase();
  const first = firstBySpelling.get(lower);
  if (first !== undefined) {
    return [
      { field: path, detail: `repeats ${first} (header names are the same whatever their case)` },
    ];
  }
  firstBySpelling.set(lower, name);
  const refused = refusedHeaderReason(name);
  return refused === null ? [] : [{ field: path, detail: refused }];
}

function checkHeaderValue(value: unknown, path: string): RuleViolation[] {
  if (typeof value !== 'string') {
    return [{ field: path, detail: 'must be a string' }];
  }
  if (value.length === 0) {
    return [{ field: path, detail: 'must not be empty' }];
  }
  if (value.length > AUTH_HEADER_VALUE_MAX_LENGTH) {
    return [{ field: path, detail: `must be at most ${AUTH_HEADER_VALUE_MAX_LENGTH} characters` }];
  }
  if (!HEADER_VALUE.test(value)) {
    return [
      {
        field: path,
        detail:
          'must be printable ASCII (no CR, LF, NUL or other control characters) and not begin or end with a space or tab',
      },
    ];
  }
  return [];
}

/** `headers`: 1 to 10 headers, each name a token not refused, each value printable ASCII. */
function checkHeaders(raw: unknown): Checked<Record<string, string>> {
  if (raw === undefined || raw === null) {
    return { value: {}, violations: [{ field: 'auth.headers', detail: 'is required' }] };
  }
  if (!isRecord(raw)) {
    const detail = `must be an object of header names to values, such as {"Authorization": "Splunk <token>"}`;
    return { value: {}, violations: [{ field: 'auth.headers', detail }] };
  }
  const names = Object.keys(raw);
  if (names.length < 1 || names.length > MAX_AUTH_HEADERS) {
    const detail = `must have 1 to ${MAX_AUTH_HEADERS} headers; it has ${names.length}`;
    return { value: {}, violations: [{ field: 'auth.headers', detail }] };
  }
  const firstBySpelling = new Map<string, string>();
  const violations = names.flatMap((name) => [
    ...checkHeaderName(name, firstBySpelling),
    ...checkHeaderValue(raw[name], headerPath(name)),
  ]);
  // fromEntries defines own properties: a header named __proto__ stays a header.
  const value = Object.fromEntries(names.map((name) => [name, asText(raw[name])]));
  return { value, violations };
}

function checkBasic(raw: Record_): Checked<ReceiverAuth> {
  const username = field(raw, 'username');
  const password = field(raw, 'password');
  const violations = [
    ...checkText(username, 'auth.username', AUTH_NAME_MAX_LENGTH),
    ...checkText(password, 'auth.password', AUTH_SECRET_MAX_LENGTH),
  ];
  if (typeof username === 'string' && username.includes(':')) {
    violations.push({
      field: 'auth.username',
      detail:
        'must not contain a colon: HTTP Basic separates the username from the password by one (RFC 7617)',
    });
  }
  return {
    value: { type: 'basic', username: asText(username), password: asText(password) },
    violations,
  };
}

function checkOAuth(raw: Record_, allowList: PrivateNetworkAllowList): Checked<ReceiverAuth> {
  const tokenUrl = field(raw, 'token_url');
  const violations = checkText(tokenUrl, 'auth.token_url', ENDPOINT_URL_MAX_LENGTH);
  if (violations.length === 0) {
    // The endpoint URL's rule (ADR 0006): https, no user information or fragment, no address
    // literal that is not public, canonical form. The engine checks the resolved address again.
    const problem = checkEndpointUrl(asText(tokenUrl), allowList);
    if (problem !== null) {
      violations.push({ field: 'auth.token_url', detail: problem });
    }
  }
  const value: OAuthClientCredentialsAuth = {
    type: 'oauth2_client_credentials',
    token_url: violations.length === 0 ? canonicalEndpointUrl(asText(tokenUrl)) : '',
    client_id: asText(field(raw, 'client_id')),
    client_secret: asText(field(raw, 'client_secret')),
  };
  violations.push(
    ...checkText(field(raw, 'client_id'), 'auth.client_id', AUTH_NAME_MAX_LENGTH),
    ...checkText(field(raw, 'client_secret'), 'auth.client_secret', AUTH_SECRET_MAX_LENGTH),
  );
  // Optional: absent or null leave them out of the token request.
  for (const name of ['scope', 'audience'] as const) {
    const given = field(raw, name);
    if (given !== undefined && given !== null) {
      violations.push(...checkText(given, `auth.${name}`, AUTH_NAME_MAX_LENGTH));
      value[name] = asText(given);
    }
  }
  return { value, violations };
}

function checkMutualTls(raw: Record_, now: Date): Checked<ReceiverAuth> {
  const certificate = field(raw, 'certificate');
  const privateKey = field(raw, 'private_key');
  const violations = [
    ...checkText(certificate, 'auth.certificate', AUTH_PEM_MAX_LENGTH, true),
    ...checkText(privateKey, 'auth.private_key', AUTH_PEM_MAX_LENGTH, true),
  ];
  if (violations.length === 0) {
    violations.push(...checkClientCertificate(asText(certificate), asText(privateKey), now));
  }
  return {
    value: { type: 'mtls', certificate: asText(certificate), private_key: asText(privateKey) },
    violations,
  };
}

function describeFields(type: ReceiverAuthType): string {
  return ['type', ...FIELDS[type]].map((name) => name.replace(/\?$/, ' (optional)')).join(', ');
}

function isReceiverAuthType(value: unknown): value is ReceiverAuthType {
  return RECEIVER_AUTH_TYPES.some((type) => type === value);
}

function checkType(raw: Record_): ReceiverAuthType | RuleViolation {
  const type = field(raw, 'type');
  if (isReceiverAuthType(type)) {
    return type;
  }
  const known = `known: ${RECEIVER_AUTH_TYPES.join(', ')}`;
  if (type === undefined || type === null) {
    return { field: 'auth.type', detail: `is required; ${known}` };
  }
  // Quoted only when it looks like a type name: whatever else was sent is not repeated back.
  const quoted = typeof type === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(type) ? `${type}; ` : '';
  return { field: 'auth.type', detail: `unknown auth type: ${quoted}${known}` };
}

/**
 * The `auth` of an endpoint as the request gives it (ADR 0048), `raw` being its parsed JSON.
 * null removes auth: `{ auth: null, violations: [] }`. Otherwise every problem, each naming its path
 * (`auth.type`, `auth.headers.Host`, `auth.token_url`, `auth.private_key`), and, when there is none,
 * the auth to keep: a fresh object of exactly its type's fields, the token URL in canonical form.
 * With violations, `auth` is null. `now` judges the client certificate's validity; `allowList`
 * admits token URLs on private addresses as it does endpoint URLs (none by default).
 */
export function checkReceiverAuth(
  raw: unknown,
  now: Date,
  allowList: PrivateNetworkAllowList = new PrivateNetworkAllowList([]),
): { auth: ReceiverAuth | null; violations: RuleViolation[] } {
  if (raw === null) {
    return { auth: null, violations: [] };
  }
  if (!isRecord(raw)) {
    const detail = `must be an object with a type (${RECEIVER_AUTH_TYPES.join(', ')}), or null to remove it`;
    return { auth: null, violations: [{ field: 'auth', detail }] };
  }
  const type = checkType(raw);
  if (typeof type !== 'string') {
    return { auth: null, violations: [type] };
  }
  const allowed = new Set(['type', ...FIELDS[type].map((name) => name.replace(/\?$/, ''))]);
  const violations: RuleViolation[] = Object.keys(raw)
    .filter((name) => !allowed.has(name))
    .map((name) => ({
      field: fieldPath('auth', name),
      detail: `is not a field of auth type ${type}; its fields: ${describeFields(type)}`,
    }));
  const checked = checkOfType(type, raw, now, allowList);
  violations.push(...checked.violations);
  return violations.length === 0 ? { auth: checked.value, violations } : { auth: null, violations };
}

function checkOfType(
  type: ReceiverAuthType,
  raw: Record_,
  now: Date,
  allowList: PrivateNetworkAllowList,
): Checked<ReceiverAuth> {
  switch (type) {
    case 'headers': {
      const headers = checkHeaders(field(raw, 'headers'));
      return { value: { type, headers: headers.value }, violations: headers.violations };
    }
    case 'basic':
      return checkBasic(raw);
    case 'oauth2_client_credentials':
      return checkOAuth(raw, allowList);
    case 'mtls':
      return checkMutualTls(raw, now);
  }
}

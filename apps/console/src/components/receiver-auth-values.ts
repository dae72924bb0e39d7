import type { ReceiverAuthRequest, ReceiverAuthType, ReceiverAuthView } from '../api/api-types';
import { refuse } from './form-values';

/** The receiver authentication form's choice: a type of ADR 0048, or none. */
export type ReceiverAuthChoice = ReceiverAuthType | 'none';

/** At most this many extra headers (the API refuses more). */
export const MAX_AUTH_HEADERS = 10;

/** One name/value row of the extra headers; `key` only tells the rows apart while editing. */
export interface HeaderRow {
  key: number;
  name: string;
  value: string;
}

/** What the receiver authentication form holds, for every type at once (switching keeps it). */
export interface ReceiverAuthForm {
  type: ReceiverAuthChoice;
  headers: HeaderRow[];
  username: string;
  password: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  audience: string;
  certificate: string;
  privateKey: string;
}

/**
 * The form as the endpoint's current authentication fills it: its type and what the answer shows
 * (header names, user name, the OAuth client); the secrets are never returned, so they are empty
 * and must be given again.
 */
export function receiverAuthFormOf(auth: ReceiverAuthView | null): ReceiverAuthForm {
  const form: ReceiverAuthForm = {
    type: auth?.type ?? 'none',
    headers: [{ key: 0, name: '', value: '' }],
    username: '',
    password: '',
    tokenUrl: '',
    clientId: '',
    clientSecret: '',
    scope: '',
    audience: '',
    certificate: '',
    privateKey: '',
  };
  if (auth?.type === 'headers' && auth.header_names.length > 0) {
    form.headers = auth.header_names.map((name, key) => ({ key, name, value: '' }));
  } else if (auth?.type === 'basic') {
    form.username = auth.username;
  } else if (auth?.type === 'oauth2_client_credentials') {
    form.tokenUrl = auth.token_url;
    form.clientId = auth.client_id;
    form.scope = auth.scope ?? '';
    form.audience = auth.audience ?? '';
  }
  return form;
}

/** The extra headers as the API takes them; rows left wholly empty are skipped. */
function headersOf(rows: readonly HeaderRow[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const row of rows) {
    const name = row.name.trim();
    if (name === '' && row.value === '') {
      continue;
    }
    if (name === '') {
      refuse('auth.headers', 'every header needs a name');
    }
    if (seen.has(name.toLowerCase())) {
      refuse('auth.headers', `${name} is given twice`);
    }
    seen.add(name.toLowerCase());
    headers[name] = row.value;
  }
  if (seen.size === 0) {
    refuse('auth.headers', 'add at least one header, or choose no authentication');
  }
  if (seen.size > MAX_AUTH_HEADERS) {
    refuse('auth.headers', `at most ${MAX_AUTH_HEADERS} headers`);
  }
  return headers;
}

/**
 * The `auth` of the PATCH: the chosen type with its fields, secrets as typed (never trimmed),
 * or null for none. The API checks the rest and names what it refuses (`auth.private_key`, …).
 */
export function receiverAuthFromForm(form: ReceiverAuthForm): ReceiverAuthRequest | null {
  switch (form.type) {
    case 'none':
      return null;
    case 'headers':
      return { type: 'headers', headers: headersOf(form.headers) };
    case 'basic':
      return { type: 'basic', username: form.username, password: form.password };
    case 'oauth2_client_credentials': {
      const scope = form.scope.trim();
      const audience = form.audience.trim();
      return {
        type: 'oauth2_client_credentials',
        token_url: form.tokenUrl.trim(),
        client_id: form.clientId.trim(),
        client_secret: form.clientSecret,
        ...(scope ? { scope } : {}),
        ...(audience ? { audience } : {}),
      };
    }
    case 'mtls':
      return { type: 'mtls', certificate: form.certificate, private_key: form.privateKey };
    default:
      return refuse('auth.type', 'choose a type of authentication');
  }
}

/**
 * The API's problems with one header row (`auth.headers.Host`), matched by name as the user
 * wrote it.
 */
export function headerRowErrors(
  fieldErrors: Record<string, string[]>,
  name: string,
): string[] | undefined {
  const wanted = `auth.headers.${name.trim()}`.toLowerCase();
  const found = Object.entries(fieldErrors)
    .filter(([field]) => field.toLowerCase() === wanted)
    .flatMap(([, messages]) => messages);
  return found.length > 0 ? found : undefined;
}

/**
 * The API's problems with the headers as a whole (`auth.headers`), and with any header whose name
 * matches no row (so that none goes unshown next to the fieldset).
 */
export function headersErrors(
  fieldErrors: Record<string, string[]>,
  rows: readonly HeaderRow[],
): string[] | undefined {
  const names = new Set(rows.map((row) => `auth.headers.${row.name.trim()}`.toLowerCase()));
  const found = Object.entries(fieldErrors)
    .filter(
      ([field]) =>
        field === 'auth.headers' ||
        (field.startsWith('auth.headers.') && !names.has(field.toLowerCase())),
    )
    .flatMap(([field, messages]) =>
      field === 'auth.headers'
        ? messages
        : messages.map((message) => `${field.slice('auth.headers.'.length)}: ${message}`),
    );
  return found.length > 0 ? found : undefined;
}

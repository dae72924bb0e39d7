import type { ReceiverAuth } from '@svc/webhook-endpoints';
import { CliError } from '../cli-context';

/**
 * From the options of `svc webhooks auth` and `svc webhooks policy` to the PATCH body, checking
 * only their shape (which options go together, `Name: value`, a list, a number): every rule about
 * the values is the API's, and its 400 says which field broke it. Nothing here quotes a value that
 * may be a secret.
 */

export const AUTH_TYPE_CHOICES = [
  'headers',
  'basic',
  'oauth2_client_credentials',
  'mtls',
  'none',
] as const;
export type AuthTypeChoice = (typeof AUTH_TYPE_CHOICES)[number];

export interface AuthOptions {
  /** Checked by the option's choices. */
  type?: AuthTypeChoice;
  header?: string[];
  headerStdin?: boolean;
  username?: string;
  passwordStdin?: boolean;
  tokenUrl?: string;
  clientId?: string;
  clientSecretStdin?: boolean;
  scope?: string;
  audience?: string;
  certificateFile?: string;
  privateKeyFile?: string;
  fromFile?: string;
}

/** What the options point to outside the command line, read by the command. */
export interface AuthInputs {
  /** All of standard input, when an option reads it. */
  stdin?: string;
  certificate?: string;
  privateKey?: string;
  /** The text of --from-file. */
  fromFile?: string;
}

type AuthOptionKey = Exclude<keyof AuthOptions, 'type' | 'fromFile'>;

const FLAGS: Record<AuthOptionKey, string> = {
  header: '--header',
  headerStdin: '--header-stdin',
  username: '--username',
  passwordStdin: '--password-stdin',
  tokenUrl: '--token-url',
  clientId: '--client-id',
  clientSecretStdin: '--client-secret-stdin',
  scope: '--scope',
  audience: '--audience',
  certificateFile: '--certificate-file',
  privateKeyFile: '--private-key-file',
};

/** The options each type takes, and of those the ones it needs. */
const TYPE_OPTIONS: Record<AuthTypeChoice, { takes: AuthOptionKey[]; needs: AuthOptionKey[] }> = {
  headers: { takes: ['header', 'headerStdin'], needs: [] },
  basic: { takes: ['username', 'passwordStdin'], needs: ['username', 'passwordStdin'] },
  oauth2_client_credentials: {
    takes: ['tokenUrl', 'clientId', 'clientSecretStdin', 'scope', 'audience'],
    needs: ['tokenUrl', 'clientId', 'clientSecretStdin'],
  },
  mtls: {
    takes: ['certificateFile', 'privateKeyFile'],
    needs: ['certificateFile', 'privateKeyFile'],
  },
  none: { takes: [], needs: [] },
};

const usage = (message: string) => new CliError(message, 2);

const given = (options: AuthOptions, key: AuthOptionKey) => {
  const value = options[key];
  return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== false;
};

/**
 * Checks which options go together: either --type or --from-file; each type's own options, all
 * that it needs and none of another type's. Throws a usage error (exit 2) otherwise.
 */
export function checkAuthOptions(options: AuthOptions): void {
  const present = (Object.keys(FLAGS) as AuthOptionKey[]).filter((key) => given(options, key));
  if (options.fromFile !== undefined) {
    if (options.type !== undefined || present.length > 0) {
      throw usage(
        `--from-file gives the whole auth object: drop ${[
          ...(options.type === undefined ? [] : ['--type']),
          ...present.map((key) => FLAGS[key]),
        ].join(', ')}`,
      );
    }
    return;
  }
  if (options.type === undefined) {
    throw usage(
      `give --type (${AUTH_TYPE_CHOICES.join(', ')}) with its options, or --from-file auth.json`,
    );
  }
  const { takes, needs } = TYPE_OPTIONS[options.type];
  const foreign = present.filter((key) => !takes.includes(key));
  if (foreign.length > 0) {
    throw usage(
      `${foreign.map((key) => FLAGS[key]).join(', ')}: not an option of --type ${options.type}` +
        (takes.length > 0 ? ` (it takes ${takes.map((key) => FLAGS[key]).join(', ')})` : ''),
    );
  }
  const missing = needs.filter((key) => !given(options, key));
  if (missing.length > 0) {
    throw usage(`--type ${options.type} needs ${missing.map((key) => FLAGS[key]).join(', ')}`);
  }
  if (options.type === 'headers' && !given(options, 'header') && !options.headerStdin) {
    throw usage("--type headers needs --header 'Name: value' or --header-stdin");
  }
}

/** Whether the options read standard input (at most one of them can, as the types go). */
export function readsStandardInput(options: AuthOptions): boolean {
  return (
    options.fromFile === '-' ||
    Boolean(options.headerStdin || options.passwordStdin || options.clientSecretStdin)
  );
}

/**
 * `Name: value` split at its first colon, both sides trimmed. No colon or no name is a usage
 * error naming `where` (the value is never quoted: it may be a secret).
 */
export function parseHeader(text: string, where: string): [name: string, value: string] {
  const colon = text.indexOf(':');
  const name = colon < 0 ? '' : text.slice(0, colon).trim();
  if (colon < 0 || name.length === 0) {
    throw usage(`${where}: give a header as 'Name: value' (a name, a colon, then the value)`);
  }
  return [name, text.slice(colon + 1).trim()];
}

/** Lines of `Name: value` as --header-stdin reads them; blank lines are skipped. */
export function parseHeaderLines(text: string): [name: string, value: string][] {
  return text
    .split(/\r?\n/)
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => line.trim().length > 0)
    .map(({ line, number }) => parseHeader(line, `--header-stdin line ${number}`));
}

/**
 * The headers of --header and then --header-stdin as one object. A name given twice exactly is a
 * usage error (an object cannot hold both); names that differ only by case go on to the API,
 * which refuses them with its own reason.
 */
export function headersOf(inline: string[], fromStdin: string | undefined): Record<string, string> {
  const pairs = [
    ...inline.map((text, index) => parseHeader(text, `--header #${index + 1}`)),
    ...(fromStdin === undefined ? [] : parseHeaderLines(fromStdin)),
  ];
  if (pairs.length === 0) {
    throw usage('--type headers: no header given (--header-stdin read no Name: value line)');
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of pairs) {
    if (Object.hasOwn(headers, name)) {
      throw usage(`header ${name} is given twice`);
    }
    headers[name] = value;
  }
  return headers;
}

/** A secret as piped in: the line break a terminal or `echo` adds is not part of it. */
export function secretFrom(input: string | undefined, flag: string): string {
  const secret = (input ?? '').replace(/\r?\n$/, '');
  if (secret.length === 0) {
    throw usage(`${flag}: standard input was empty`);
  }
  return secret;
}

/** --from-file's text: the API's JSON auth object as is, or null (to remove auth). */
export function authFromJson(text: string, where: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usage(`${where}: not JSON`);
  }
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw usage(
      `${where}: must be a JSON object (the API's auth, such as {"type": "basic", ...}) or null`,
    );
  }
  return value as Record<string, unknown> | null;
}

/**
 * The `auth` to PATCH, from options already checked by checkAuthOptions and what they point to:
 * null for --type none.
 */
export function authFromOptions(
  options: AuthOptions,
  inputs: AuthInputs,
): ReceiverAuth | Record<string, unknown> | null {
  if (options.fromFile !== undefined) {
    return authFromJson(inputs.fromFile ?? '', `--from-file ${options.fromFile}`);
  }
  switch (options.type) {
    case 'headers':
      return {
        type: 'headers',
        headers: headersOf(options.header ?? [], options.headerStdin ? inputs.stdin : undefined),
      };
    case 'basic':
      return {
        type: 'basic',
        username: options.username as string,
        password: secretFrom(inputs.stdin, '--password-stdin'),
      };
    case 'oauth2_client_credentials':
      return {
        type: 'oauth2_client_credentials',
        token_url: options.tokenUrl as string,
        client_id: options.clientId as string,
        client_secret: secretFrom(inputs.stdin, '--client-secret-stdin'),
        ...(options.scope !== undefined && { scope: options.scope }),
        ...(options.audience !== undefined && { audience: options.audience }),
      };
    case 'mtls':
      return {
        type: 'mtls',
        certificate: inputs.certificate ?? '',
        private_key: inputs.privateKey ?? '',
      };
    case 'none':
      return null;
    default:
      throw usage(`give --type (${AUTH_TYPE_CHOICES.join(', ')}) or --from-file auth.json`);
  }
}

export interface PolicyOptions {
  retrySchedule?: string;
  defaultRetrySchedule?: boolean;
  timeout?: string;
  defaultTimeout?: boolean;
}

export interface PolicyChange {
  retry_schedule?: string[] | null;
  timeout_seconds?: number | null;
}

/** `10s, 1m,1h` as a list; an empty entry is a usage error (the durations are the API's to judge). */
export function parseRetrySchedule(list: string): string[] {
  const entries = list.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry.length === 0)) {
    throw usage('--retry-schedule: give comma-separated durations such as 10s,1m,1h');
  }
  return entries;
}

/** A number of seconds (its range and wholeness are the API's to judge). */
export function parseTimeout(text: string): number {
  const trimmed = text.trim();
  if (!/^[+-]?\d+(\.\d+)?$/.test(trimmed)) {
    throw usage('--timeout: give a number of seconds such as 5');
  }
  return Number(trimmed);
}

/** The PATCH body of `svc webhooks policy`: null for each --default-… option. */
export function policyFromOptions(options: PolicyOptions): PolicyChange {
  if (options.retrySchedule !== undefined && options.defaultRetrySchedule) {
    throw usage('give --retry-schedule or --default-retry-schedule, not both');
  }
  if (options.timeout !== undefined && options.defaultTimeout) {
    throw usage('give --timeout or --default-timeout, not both');
  }
  const change: PolicyChange = {
    ...(options.retrySchedule !== undefined && {
      retry_schedule: parseRetrySchedule(options.retrySchedule),
    }),
    ...(options.defaultRetrySchedule && { retry_schedule: null }),
    ...(options.timeout !== undefined && { timeout_seconds: parseTimeout(options.timeout) }),
    ...(options.defaultTimeout && { timeout_seconds: null }),
  };
  if (Object.keys(change).length === 0) {
    throw usage(
      'give --retry-schedule or --default-retry-schedule, --timeout or --default-timeout',
    );
  }
  return change;
}

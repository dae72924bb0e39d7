import { CliError, CliIo, localStack } from './cli-context';

/** Where the registration API answers when neither option, environment nor local stack says. */
export const DEFAULT_API_URL = 'http://localhost:8080';

/** The options of the commands that talk to the registration API. */
export interface ApiOptions {
  apiKey?: string;
  apiUrl?: string;
}

export interface ApiSettings {
  apiKey: string;
  /** Without a trailing slash. */
  apiUrl: string;
}

/**
 * The key (--api-key, else SVC_API_KEY) and the API's address (--api-url, else SVC_API_URL, else
 * the local stack's, else localhost:8080). No key is a usage error.
 */
export function apiSettingsOf(options: ApiOptions, io: CliIo): ApiSettings {
  const apiKey = options.apiKey ?? io.env.SVC_API_KEY;
  if (!apiKey) {
    throw new CliError('give an API key with webhooks:manage: --api-key or SVC_API_KEY', 2);
  }
  const apiUrl = (
    options.apiUrl ??
    io.env.SVC_API_URL ??
    localStack(io).apiUrl ??
    DEFAULT_API_URL
  ).replace(/\/$/, '');
  return { apiKey, apiUrl };
}

/** A problem document's member when it is a string (what RFC 9457 says it is). */
const stringOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/**
 * An error answer as a person reads it: the status and the problem's detail, or, when the problem
 * lists its fields' problems (a 400), the title and one indented `field: detail` line for each.
 */
export function describeProblem(status: number, text: string): string {
  let document: { title?: unknown; detail?: unknown; errors?: unknown } | null;
  try {
    document = JSON.parse(text) as typeof document;
  } catch {
    return `${status} ${text.slice(0, 200)}`.trimEnd();
  }
  const title = stringOf(document?.title);
  const detail = stringOf(document?.detail);
  const errors: unknown[] = Array.isArray(document?.errors) ? document.errors : [];
  if (errors.length > 0) {
    return [
      `${status} ${title ?? detail ?? 'the request is not valid'}`,
      ...errors.map((error) => {
        const { field, detail: why } = (error ?? {}) as { field?: unknown; detail?: unknown };
        return `  ${stringOf(field) ?? '(body)'}: ${stringOf(why) ?? 'is not valid'}`;
      }),
    ].join('\n');
  }
  return `${status} ${detail ?? title ?? text.slice(0, 200)}`;
}

/** The registration API over HTTP with a Bearer key, with errors a person can act on. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  static from(options: ApiOptions, io: CliIo): ApiClient {
    const { apiUrl, apiKey } = apiSettingsOf(options, io);
    return new ApiClient(apiUrl, apiKey);
  }

  /** The answer as it comes; only an API that cannot be reached is an error. */
  async call(method: string, path: string, body?: unknown): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const cause = (error as Error).cause;
      throw new CliError(
        `cannot reach the API at ${this.baseUrl} (${cause instanceof Error ? cause.message : (error as Error).message}); is \`npm start\` running? --api-url chooses another`,
      );
    }
  }

  /**
   * The answer's JSON when the status is 2xx; otherwise a CliError (exit 1) saying what failed
   * (`doing`, such as "reading wh_01"), with each of a 400's problems on a line of its own.
   */
  async json<T>(method: string, path: string, doing: string, body?: unknown): Promise<T> {
    const response = await this.call(method, path, body);
    const text = await response.text();
    if (!response.ok) {
      throw new CliError(`${doing} failed: ${describeProblem(response.status, text)}`);
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(`${doing}: the API answered ${response.status} with no JSON`);
    }
  }
}

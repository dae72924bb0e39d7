import { Agent, request } from 'undici';

/**
 * Real HTTP for the fuzz suite: one keep-alive pool per app (bounded connections), raw bodies and
 * headers exactly as generated, an answer or a transport error for every request, never a throw.
 */

export type Target = 'api' | 'auth';

export interface FuzzRequest {
  target: Target;
  /** The route the request aims at, as the controller names it (for grouping failures). */
  route: string;
  /** What kind of input was generated (for grouping failures). */
  label: string;
  method: string;
  /** Already encoded: sent as is. */
  path: string;
  headers: Record<string, string | string[]>;
  body?: string | Uint8Array;
}

export interface FuzzAnswer {
  status: number;
  contentType: string;
  requestId: string;
  text: string;
  /** A transport failure (no answer, reset, timeout) instead of a status. */
  error?: string;
}

export interface Failure {
  request: FuzzRequest;
  answer: FuzzAnswer;
  problem: string;
}

const ANSWER_TIMEOUT_MS = Number(process.env.FUZZ_TIMEOUT_MS ?? 15_000);

export class FuzzClient {
  readonly sent: Record<Target, number> = { api: 0, auth: 0 };
  /** Answers per route and status (0: no answer), to see which code the inputs reached. */
  readonly statuses = new Map<string, Map<number, number>>();
  private readonly agent: Agent;

  constructor(
    private readonly baseUrls: Record<Target, string>,
    connections: number,
  ) {
    this.agent = new Agent({
      connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: ANSWER_TIMEOUT_MS,
      bodyTimeout: ANSWER_TIMEOUT_MS,
    });
  }

  async send(fuzz: FuzzRequest): Promise<FuzzAnswer> {
    const answer = await this.exchange(fuzz);
    const route = `${fuzz.target} ${fuzz.route}`;
    const counts = this.statuses.get(route) ?? new Map<number, number>();
    counts.set(answer.status, (counts.get(answer.status) ?? 0) + 1);
    this.statuses.set(route, counts);
    return answer;
  }

  /** One line per route: how often each status came back. */
  statusTable(): string {
    return [...this.statuses.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([route, counts]) =>
          `${route}: ${[...counts.entries()]
            .sort(([a], [b]) => a - b)
            .map(([status, count]) => `${status}×${count}`)
            .join(' ')}`,
      )
      .join('\n');
  }

  private async exchange(fuzz: FuzzRequest): Promise<FuzzAnswer> {
    this.sent[fuzz.target] += 1;
    try {
      const response = await request(`${this.baseUrls[fuzz.target]}${fuzz.path}`, {
        method: fuzz.method as 'GET',
        headers: fuzz.headers,
        body: fuzz.body,
        dispatcher: this.agent,
      });
      const text = await response.body.text();
      const header = (name: string) => {
        const value = response.headers[name];
        return Array.isArray(value) ? value.join(', ') : (value ?? '');
      };
      return {
        status: response.statusCode,
        contentType: header('content-type'),
        requestId: header('x-request-id'),
        text,
      };
    } catch (error) {
      const described =
        error instanceof Error
          ? `${error.name}${(error as { code?: string }).code ? ` ${(error as { code?: string }).code}` : ''}: ${error.message}`
          : String(error);
      return { status: 0, contentType: '', requestId: '', text: '', error: described };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** What is wrong with the answer, or null. */
export function judge(fuzz: FuzzRequest, answer: FuzzAnswer): string | null {
  if (answer.error !== undefined) {
    return `no answer (${answer.error})`;
  }
  if (answer.status >= 500) {
    return `answered ${answer.status}`;
  }
  if (
    fuzz.target === 'api' &&
    answer.status >= 400 &&
    answer.status < 500 &&
    fuzz.method !== 'HEAD'
  ) {
    if (!/^application\/problem\+json\b/i.test(answer.contentType)) {
      return `answered ${answer.status} as ${answer.contentType || 'no content type'}, not application/problem+json`;
    }
    let document: unknown;
    try {
      document = JSON.parse(answer.text);
    } catch {
      return `answered ${answer.status} with a problem+json body that is not JSON`;
    }
    const problem = document as Record<string, unknown> | null;
    if (
      typeof problem !== 'object' ||
      problem === null ||
      typeof problem.type !== 'string' ||
      typeof problem.title !== 'string' ||
      problem.status !== answer.status
    ) {
      return `answered ${answer.status} with a problem document without type, title or the same status`;
    }
  }
  return null;
}

const excerpt = (value: string, max: number) =>
  JSON.stringify(value.length > max ? `${value.slice(0, max)}…(${value.length} chars)` : value);

export function bodyText(body: string | Uint8Array | undefined): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : Buffer.from(body).toString('latin1');
}

/** The request and the answer, readable, bounded, with NULs and lone surrogates escaped. */
export function describeFailure({ request: fuzz, answer, problem }: Failure): string {
  const headers = Object.entries(fuzz.headers)
    .map(([name, value]) => {
      const shown = (Array.isArray(value) ? value : [value]).map((one) =>
        name === 'authorization' || name === 'cookie' ? `${one.slice(0, 24)}…` : one,
      );
      return `${name}: ${excerpt(shown.join(' | '), 120)}`;
    })
    .join('; ');
  return [
    `${problem} [${fuzz.target} ${fuzz.route}; input: ${fuzz.label}]`,
    `  request: ${fuzz.method} ${excerpt(fuzz.path, 300)}`,
    `  headers: ${headers || '(none)'}`,
    `  body: ${fuzz.body === undefined ? '(none)' : excerpt(bodyText(fuzz.body), 400)}`,
    `  answer: ${answer.error ?? `${answer.status} ${answer.contentType}`}${answer.requestId ? ` (request id ${answer.requestId})` : ''} ${excerpt(answer.text, 500)}`,
  ].join('\n');
}

/** Failures grouped by route, input class and outcome: one line per distinct case. */
export class FailureLog {
  private readonly seen = new Map<string, { count: number; first: Failure }>();

  record(failure: Failure): void {
    const key = `${failure.request.target} ${failure.request.route} | ${failure.request.label} | ${failure.problem} | ${failureSignature(failure.answer)}`;
    const entry = this.seen.get(key);
    if (entry) {
      entry.count += 1;
    } else {
      this.seen.set(key, { count: 1, first: failure });
    }
  }

  get size(): number {
    return this.seen.size;
  }

  summary(): string {
    return [...this.seen.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, { count, first }]) => `${count}× ${key}\n${describeFailure(first)}`)
      .join('\n\n');
  }
}

/** What distinguishes one failure from another in the answer: the problem type or Fastify code. */
function failureSignature(answer: FuzzAnswer): string {
  if (answer.error) return answer.error.replace(/\d+/g, 'N').slice(0, 80);
  try {
    const body = JSON.parse(answer.text) as Record<string, unknown>;
    const parts = [body.type, body.code, body.error, body.title].filter(
      (part) => typeof part === 'string',
    );
    return parts.join(' ').slice(0, 120);
  } catch {
    return answer.text.replace(/\s+/g, ' ').slice(0, 60);
  }
}

/**
 * What the console says when a call fails: an RFC 9457 problem document (ADR 0003), an OAuth
 * error answer, or no answer at all, turned into plain words. Pure: the page shows the result
 * as text, next to the form (field errors) or at the top of the page (the summary).
 */
export interface FailureMessage {
  /** One sentence for the top of the form or page. */
  summary: string;
  /** The API's own explanation (its `detail`), when it adds something to the summary. */
  detail: string | null;
  /** Field name as the API names it (`url`, `events`, …) to what is wrong with it. */
  fieldErrors: Record<string, string[]>;
}

interface ProblemLike {
  title?: unknown;
  detail?: unknown;
  errors?: unknown;
}

const STATUS_WORDS: Record<number, string> = {
  400: 'Some of what was sent is not accepted.',
  401: 'Your session has ended. Sign in again.',
  403: 'This session is not allowed to do that.',
  404: 'Not found. It may have been deleted, or belong to another tenant or environment.',
  409: 'That cannot be done in the current state.',
  410: 'That is no longer available.',
  413: 'What was sent is too large.',
  415: 'What was sent is not in a format the API accepts.',
  429: 'Too many requests at once. Wait a moment and try again.',
};

const asText = (value: unknown): string | null =>
  typeof value === 'string' && value.trim().length > 0 ? value.trim() : null;

function fieldErrorsOf(errors: unknown): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  if (!Array.isArray(errors)) {
    return fields;
  }
  for (const entry of errors as unknown[]) {
    if (typeof entry !== 'object' || entry === null) {
      continue;
    }
    const { field, detail } = entry as { field?: unknown; detail?: unknown };
    const name = asText(field) ?? 'request';
    const text = asText(detail);
    if (text) {
      (fields[name] ??= []).push(text);
    }
  }
  return fields;
}

/** The message for an answer with a status of 400 or more and its parsed body (if any). */
export function failureFromResponse(status: number, body: unknown): FailureMessage {
  const problem: ProblemLike = typeof body === 'object' && body !== null ? body : {};
  const fieldErrors = fieldErrorsOf(problem.errors);
  const oauth = body as { error?: unknown; error_description?: unknown } | null;
  const detail =
    asText(problem.detail) ?? asText(oauth?.error_description) ?? asText(problem.title);
  const summary =
    STATUS_WORDS[status] ??
    (status >= 500
      ? 'The service could not answer just now. Try again in a moment.'
      : `The request was refused (HTTP ${status}).`);
  const fieldSummary = Object.entries(fieldErrors)
    .map(([field, messages]) => `${field}: ${messages.join('; ')}`)
    .join('. ');
  // With field errors the API's detail repeats them; say each once.
  const shownDetail = fieldSummary ? fieldSummary : detail;
  return { summary, detail: shownDetail === summary ? null : shownDetail, fieldErrors };
}

/** The message for a call that got no answer: offline, blocked, or the server unreachable. */
export function failureFromNetwork(error: unknown): FailureMessage {
  const aborted = error instanceof DOMException && error.name === 'AbortError';
  return {
    summary: aborted
      ? 'The request took too long and was stopped. Try again.'
      : 'The service could not be reached. Check your connection and try again.',
    detail: null,
    fieldErrors: {},
  };
}

/** The `return_url` member of a refused exchange's problem, when it is a string. */
export function returnUrlOfProblem(problem: unknown): string | null {
  if (typeof problem !== 'object' || problem === null || !('return_url' in problem)) {
    return null;
  }
  return typeof problem.return_url === 'string' ? problem.return_url : null;
}

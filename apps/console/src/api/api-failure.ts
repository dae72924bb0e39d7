import { failureFromNetwork, failureFromResponse, FailureMessage } from './problem-message';

/** A failed API call, carrying what to tell the user. `status` is null when nothing answered. */
export class ApiFailure extends Error {
  constructor(
    readonly failure: FailureMessage,
    readonly status: number | null,
    /** The API's problem document as it came, for the members a page needs beyond the words. */
    readonly problem: unknown = null,
  ) {
    super(failure.summary);
    this.name = 'ApiFailure';
  }
}

/** What a caught error means for the user: an API failure's message, else a network failure. */
export function failureOf(error: unknown): FailureMessage {
  return error instanceof ApiFailure ? error.failure : failureFromNetwork(error);
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of an openapi-fetch call, or an ApiFailure. The response's status decides, not the
 * presence of `error`: openapi-fetch gives neither data nor error for an empty body.
 */
export async function dataOf<T>(call: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await call;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') {
      throw error;
    }
    throw new ApiFailure(failureFromNetwork(error), null);
  }
  if (!result.response.ok) {
    throw new ApiFailure(
      failureFromResponse(result.response.status, result.error),
      result.response.status,
      result.error,
    );
  }
  return result.data as T;
}

/** True for the abort of a request whose page went away: nothing to show. */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

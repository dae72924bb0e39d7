/** A thin fetch wrapper for the suites: real HTTP, JSON in and out, nothing hidden. */
export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function http<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) {
    headers.authorization = `Bearer ${options.key}`;
  }
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the caller reads `text`
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

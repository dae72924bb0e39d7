/**
 * A URL from the API that the console makes a link of (a portal session's return_url) must be
 * http(s): Preact writes an href as given, and `javascript:` there would run in the console.
 */
export function safeExternalUrl(url: string | null | undefined): string | null {
  if (!url || !URL.canParse(url)) {
    return null;
  }
  const parsed = new URL(url);
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : null;
}

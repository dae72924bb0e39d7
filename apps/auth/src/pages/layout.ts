import escapeHtml from 'escape-html';

/** Escapes text for HTML content and attribute values. */
export const text = (value: string): string => escapeHtml(value);

/** A complete page: no script, styles inline (the CSP allows nothing else). */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1b1f24; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input { display: block; width: 100%; box-sizing: border-box; padding: .5rem; margin-top: .25rem; font-size: 1rem; }
  button { margin-top: 1.25rem; margin-right: .5rem; padding: .5rem 1.25rem; font-size: 1rem; }
  .error { color: #a40e26; border-left: 4px solid #a40e26; padding-left: .75rem; }
  .scopes li { margin: .4rem 0; }
  .muted { color: #57606a; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** Hidden inputs that carry a request through a form, one per value. */
export function hiddenFields(fields: Record<string, string | undefined>): string {
  return Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${text(name)}" value="${text(value)}">`)
    .join('\n');
}

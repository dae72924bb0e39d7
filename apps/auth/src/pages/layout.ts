import escapeHtml from 'escape-html';

/** Escapes text for HTML content and attribute values. */
export const text = (value: string): string => escapeHtml(value);

/** The product's name, in every page's header: signing in is part of the same product. */
export const PRODUCT_NAME = 'svc webhooks';

/**
 * The console's shared stylesheet as this server serves it (`/assets/theme.css`). Relative,
 * because every page is under /oauth/ and the server may sit under a path prefix of a proxy.
 */
export const THEME_STYLESHEET_HREF = '../assets/theme.css';

/**
 * A complete page in the console's look (ADR 0042): the shared stylesheet, linked, and its class
 * names; no script and no inline style, so the CSP allows styles from this server only. Without
 * the stylesheet the page is plain HTML and works the same.
 */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text(title)} · ${PRODUCT_NAME}</title>
<link rel="stylesheet" href="${THEME_STYLESHEET_HREF}">
</head>
<body>
<header><strong>${PRODUCT_NAME}</strong></header>
<main>
<div class="card">
${body}
</div>
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

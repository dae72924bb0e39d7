import { z } from 'zod';
import { duration, setting, url } from '../kinds';
import { section } from '../section';

/** The tenant console (ADR 0042): where it is served and who may frame it. */
export interface ConsoleSettings {
  /** The console's public address, ending in `/`: portal links and its sign-in redirect start here. */
  url: string;
  /** Origins allowed to show the console in a frame (CSP `frame-ancestors`); `'none'` when empty. */
  frameAncestors: string[];
  /** How long a portal link may wait before its first (and only) use. */
  portalLinkTtlMs: number;
  /** How long the session a portal link opens lasts. */
  portalSessionTtlMs: number;
}

/** A frame ancestor is an origin (`https://app.example.com`) or `'self'`; never `*`. */
const frameAncestors = {
  schema: z
    .string()
    .default('')
    .transform((raw) =>
      raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    )
    .superRefine((items, ctx) => {
      for (const item of items) {
        if (item !== "'self'" && !isOrigin(item)) {
          ctx.addIssue({
            code: 'custom',
            message: `"${item}" is not an origin such as https://app.example.com (or 'self')`,
          });
        }
      }
    }),
  default: "empty: nobody (`'none'`)",
  format: "origins, comma-separated, or `'self'`",
};

function isOrigin(text: string): boolean {
  try {
    const parsed = new URL(text);
    return (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.origin === text;
  } catch {
    return false;
  }
}

const withTrailingSlash = (address: string) => (address.endsWith('/') ? address : `${address}/`);

export const consoleSettings = section({
  name: 'console',
  variables: {
    CONSOLE_URL: setting(
      url('http://localhost:8080/console/'),
      "the console's public address (served by the API at `/console/`); portal links and its sign-in redirect `<CONSOLE_URL>callback` start here",
    ),
    CONSOLE_FRAME_ANCESTORS: setting(
      frameAncestors,
      'origins allowed to show the console in a frame (CSP `frame-ancestors`); nobody when empty, never `*`',
    ),
    PORTAL_LINK_TTL: setting(
      duration('10m'),
      'a portal link not used within this expires (a link works once)',
    ),
    PORTAL_SESSION_TTL: setting(
      duration('1h'),
      'how long the console session a portal link opens lasts',
    ),
  },
  build: (values): { console: ConsoleSettings } => ({
    console: {
      url: withTrailingSlash(values.CONSOLE_URL),
      frameAncestors: values.CONSOLE_FRAME_ANCESTORS,
      portalLinkTtlMs: values.PORTAL_LINK_TTL,
      portalSessionTtlMs: values.PORTAL_SESSION_TTL,
    },
  }),
});

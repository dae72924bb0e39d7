import { matchRoute } from '../router/routes';
import { CallbackQuery, readCallbackQuery, readPortalFragment } from './launch-address';

/**
 * Runs when this module is first evaluated, which main.tsx makes the very first thing the
 * console does (its first import; nothing here imports anything that does work): takes a portal
 * link's token out of the fragment, and an OAuth callback's code out of the query, and takes
 * them out of the address bar with history.replaceState before anything else can see them,
 * be it our code, an error report, a screenshot or the browser's history.
 */
export interface LaunchAddress {
  /** The portal link token (`#portal=`), to exchange once. */
  portalToken: string | null;
  /** Whether the fragment had `portal=` at all (a malformed token still means a portal visit). */
  portalLink: boolean;
  /** The authorization response, when the page loaded at /console/callback. */
  callback: CallbackQuery | null;
}

function captureLaunchAddress(): LaunchAddress {
  const { pathname, search, hash } = window.location;
  const fragment = readPortalFragment(hash);
  const portalLink = fragment.remainingHash !== hash;
  const isCallback = matchRoute(pathname).page === 'callback';
  const callback = isCallback ? readCallbackQuery(search) : null;
  if (portalLink || isCallback) {
    const cleanPath = isCallback ? '/console/' : `${pathname}${search}`;
    window.history.replaceState(null, '', `${cleanPath}${fragment.remainingHash}`);
  }
  return { portalToken: fragment.token, portalLink, callback };
}

export const launchAddress: LaunchAddress = captureLaunchAddress();

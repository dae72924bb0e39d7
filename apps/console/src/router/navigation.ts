import { useEffect, useState } from 'preact/hooks';

/**
 * The console's own small router over the History API: `navigate` changes the address and tells
 * the pages; `useLocationPath` re-renders them on every change, back and forward included.
 */
const NAVIGATED = 'console:navigated';

/** Set by navigate: the next page's heading takes the focus, as a full page load would reset it. */
let focusHeadingOnNextPage = false;

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) {
    history.replaceState(null, '', path);
  } else {
    history.pushState(null, '', path);
  }
  focusHeadingOnNextPage = true;
  window.dispatchEvent(new Event(NAVIGATED));
}

/** Whether a page's heading should take the focus (once per navigation). */
export function takeHeadingFocus(): boolean {
  const take = focusHeadingOnNextPage;
  focusHeadingOnNextPage = false;
  return take;
}

export interface LocationPath {
  pathname: string;
  search: string;
}

const current = (): LocationPath => ({
  pathname: location.pathname,
  search: location.search,
});

export function useLocationPath(): LocationPath {
  const [path, setPath] = useState(current);
  useEffect(() => {
    const update = () => setPath(current());
    const onPopState = () => {
      focusHeadingOnNextPage = true;
      update();
    };
    window.addEventListener(NAVIGATED, update);
    window.addEventListener('popstate', onPopState);
    return () => {
      window.removeEventListener(NAVIGATED, update);
      window.removeEventListener('popstate', onPopState);
    };
  }, []);
  return path;
}

/** Whether a click on a link is an ordinary one (not a new tab, window or download). */
export function isPlainClick(event: MouseEvent): boolean {
  return (
    event.button === 0 &&
    !event.defaultPrevented &&
    !event.metaKey &&
    !event.ctrlKey &&
    !event.shiftKey &&
    !event.altKey
  );
}

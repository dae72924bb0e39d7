import { useCallback, useEffect, useState } from 'preact/hooks';
import { failureOf, isAbort } from '../api/api-failure';
import type { FailureMessage } from '../api/problem-message';

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'ready'; value: T }
  | { state: 'failed'; failure: FailureMessage };

/**
 * Loads what a page shows, again whenever `key` changes or `reload` is called. A load that a
 * newer one replaced, or whose page went away, is aborted and never shown.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setLoaded({ state: 'loading' });
    load(controller.signal).then(
      (value) => {
        if (!controller.signal.aborted) {
          setLoaded({ state: 'ready', value });
        }
      },
      (error: unknown) => {
        if (!controller.signal.aborted && !isAbort(error)) {
          setLoaded({ state: 'failed', failure: failureOf(error) });
        }
      },
    );
    return () => controller.abort();
    // `load` is a new function on every render; `key` says when what it loads changes.
  }, [key, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return [loaded, reload];
}

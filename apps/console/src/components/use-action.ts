import { useState } from 'preact/hooks';
import { failureOf } from '../api/api-failure';
import type { FailureMessage } from '../api/problem-message';

/**
 * The state of a button or form that calls the API: busy while it runs (so it is not sent
 * twice), and the failure to show next to it, if any.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<FailureMessage | null>(null);
  async function run<T>(action: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setFailure(null);
    try {
      return await action();
    } catch (error) {
      setFailure(failureOf(error));
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { busy, failure, run, clearFailure: () => setFailure(null) };
}

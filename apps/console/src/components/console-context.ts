import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from '../api/api-client';
import type { SessionView } from '../session/session-state';

/** What every page of a signed-in console uses: the API client and what the session may do. */
export interface ConsoleServices {
  client: ApiClient;
  session: SessionView;
}

export const ConsoleContext = createContext<ConsoleServices | null>(null);

export function useConsole(): ConsoleServices {
  const services = useContext(ConsoleContext);
  if (!services) {
    throw new Error('useConsole outside a signed-in console');
  }
  return services;
}

import { dataOf } from '../api/api-failure';
import type { EventType } from '../api/api-types';
import { useConsole } from './console-context';
import { Loaded, useLoad } from './use-load';

/** The event-type catalogue (GET /v1/event-types), for the pickers and the catalogue page. */
export function useEventCatalogue(): Loaded<EventType[]> {
  const { client } = useConsole();
  const [catalogue] = useLoad(
    async (signal) => (await dataOf(client.GET('/v1/event-types', { signal }))).data,
    'event-types',
  );
  return catalogue;
}

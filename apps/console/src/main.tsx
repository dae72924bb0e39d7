// First, before anything else runs: take a portal token or an OAuth code out of the address bar.
import { launchAddress } from './boot/capture-launch';
import { render } from 'preact';
import { createApiClient } from './api/api-client';
import { App } from './app';
import { startConsole } from './boot/start-console';
import { ConsoleSession } from './session/console-session';
import './styles/console.css';

const session = new ConsoleSession();
const client = createApiClient(session);
const root = document.getElementById('console-root');
if (root) {
  render(<App session={session} client={client} />, root);
}
void startConsole(session, client, launchAddress);

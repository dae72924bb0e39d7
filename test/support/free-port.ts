import { createServer } from 'node:net';

/**
 * A loopback port nobody listens on right now, so that a URL naming it can be configured before
 * the service that will listen on it starts.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => done());
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

import { createServer, connect, Server, Socket } from 'node:net';
import { freePort } from '../../support/free-port';

/**
 * A TCP forwarder on a loopback port of its own, in the test process: what a Kubernetes Service
 * is to the apps (one address, whose backend changes at a failover) and what a slow network is
 * to a standby (the bytes held while it is paused).
 *
 * - `switchTo(port)` sends new connections to another backend and ends the open ones, as kube-proxy
 *   does once the old pod's endpoint is gone: a client is not left talking to a dead server.
 * - `pause()` stops relaying in both directions (nothing is read, so nothing is buffered here past
 *   one chunk); `resume()` relays again. `dropConnections()` ends every connection without passing
 *   on what is still held: the bytes in transit are lost, as they are when the sender dies.
 */
export class TcpForwarder {
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private paused = false;
  /** Connections accepted since the start (each opened one to the backend of the moment). */
  accepted = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private target: number,
  ) {}

  static async start(targetPort: number, port?: number): Promise<TcpForwarder> {
    const listenPort = port ?? (await freePort());
    const server = createServer({ pauseOnConnect: true });
    const forwarder = new TcpForwarder(server, listenPort, targetPort);
    server.on('connection', (client) => forwarder.relay(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listenPort, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return forwarder;
  }

  get targetPort(): number {
    return this.target;
  }

  get openConnections(): number {
    return this.pairs.size;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** New connections go to `port` from now on; the open ones are ended. */
  switchTo(port: number): void {
    this.target = port;
    this.dropConnections();
  }

  pause(): void {
    this.paused = true;
    for (const { client, upstream } of this.pairs) {
      client.pause();
      upstream.pause();
    }
  }

  resume(): void {
    this.paused = false;
    for (const { client, upstream } of this.pairs) {
      client.resume();
      upstream.resume();
    }
  }

  /** Ends every open connection at once (a reset: what is held is not delivered). */
  dropConnections(): void {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: Socket): void {
    this.accepted += 1;
    const upstream = connect({ host: '127.0.0.1', port: this.target });
    const pair = { client, upstream };
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
    // By hand rather than pipe(): pipe() resumes a source when its destination drains, which
    // would undo a pause.
    const forward = (from: Socket, to: Socket) => {
      from.on('data', (chunk: Buffer) => {
        if (!to.write(chunk)) {
          from.pause();
        }
      });
      to.on('drain', () => {
        if (!this.paused) {
          from.resume();
        }
      });
    };
    upstream.once('connect', () => {
      forward(client, upstream);
      forward(upstream, client);
      if (!this.paused) {
        client.resume();
      } else {
        upstream.pause();
      }
    });
  }
}

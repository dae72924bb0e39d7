import type { IncomingMessage, ServerResponse } from 'node:http';
import { FRAMEWORK_PROBLEMS } from './problems/framework-problems';
import { PROBLEM_CONTENT_TYPE } from './problems/problem-details';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * How long and how much of a request body the server still reads, and throws away, after it has
 * answered before the body arrived (a 413, a 400, a 415) and is closing the connection. Closing
 * a socket with unread bytes makes the kernel send a TCP reset, and a client still writing its
 * body (Node's fetch, curl without `Expect: 100-continue`) sees EPIPE or ECONNRESET instead of
 * the answer. So the connection lingers, as nginx's and Apache's lingering close do: the answer
 * and the end of our writing side go out at once, the rest of the body is read and discarded
 * (never buffered), and the socket closes when the body is complete, the client closes, or one of
 * these bounds is reached, whichever comes first. 8 MiB covers a client sending a body a hundred
 * times the default limit at loopback or LAN speed; 5 s is what a slow one gets before it is cut
 * off (it then sees the reset, as every client did before).
 */
export const LINGERING_CLOSE = {
  maxBytes: 8 * 1024 * 1024,
  maxMs: 5_000,
  checkEveryMs: 50,
} as const;

/**
 * The manners every port of every app keeps before and after Fastify: an HTTP/1.1 request
 * without `Host` is a 400 problem document (Node's own check, `requireHostHeader`, answers a bare
 * 400, so the server is created with it off and the check is here); and a connection that is
 * closed while the request's body is still arriving lingers (LINGERING_CLOSE).
 */
export function withConnectionManners(handler: Handler): Handler {
  return (request, response) => {
    lingerIfAnsweredEarly(request, response);
    if (request.httpVersion === '1.1' && request.headers.host === undefined) {
      const body = JSON.stringify(FRAMEWORK_PROBLEMS.missingHost);
      response.shouldKeepAlive = false;
      response.writeHead(400, {
        'content-type': PROBLEM_CONTENT_TYPE,
        'content-length': Buffer.byteLength(body),
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        connection: 'close',
      });
      response.end(body);
      return;
    }
    handler(request, response);
  };
}

/**
 * Node, once a response with `Connection: close` is written, ends the socket and destroys it as
 * soon as the response is flushed (`socket.destroySoon`, from the response's first 'finish'
 * listener, which runs before this one): with the body still arriving, that is the reset. This
 * listener takes the destroy back and lingers instead; Node's parser goes on reading the body and
 * drops it (the request is dumped once the response is finished). The parser reads the socket in
 * C++, with no 'data' events, so what was read is the socket's `bytesRead`, looked at on a timer.
 */
function lingerIfAnsweredEarly(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  response.once('finish', () => {
    if (request.complete || socket.destroyed || socket.writable) {
      // the body was read, the socket is gone already, or it stays open (keep-alive)
      return;
    }
    // destroySoon registered this very function (`this.once('finish', this.destroy)`)
    // eslint-disable-next-line @typescript-eslint/unbound-method
    socket.removeListener('finish', socket.destroy);
    const readBefore = socket.bytesRead;
    const started = Date.now();
    const close = () => {
      clearInterval(watch);
      socket.destroy();
    };
    const watch = setInterval(() => {
      if (
        socket.bytesRead - readBefore > LINGERING_CLOSE.maxBytes ||
        Date.now() - started >= LINGERING_CLOSE.maxMs
      ) {
        close();
      }
    }, LINGERING_CLOSE.checkEveryMs);
    watch.unref();
    // the body complete (nothing left unread) or the client gone: close as Node would have
    request.once('end', close);
    socket.once('end', close);
    socket.once('close', () => clearInterval(watch));
  });
}

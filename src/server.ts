import { createServer, IncomingMessage, ServerResponse, STATUS_CODES, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { connect, Server as NetServer, type AddressInfo, type Socket } from 'node:net';
import { DEFAULT_SERVER_TIMEOUTS, type ServerTimeouts } from './config/config.js';
import { StartupError } from './startup-error.js';

/** What a stop found and did. */
export interface StopReport {
  /** Requests in flight when the stop began. */
  inFlight: number;
  /** Requests still running at the deadline (or at a forced stop), whose connections were cut. */
  cut: number;
  /** The deadline passed or the stop was forced before every request finished. */
  forced: boolean;
}

interface ServerState {
  readonly inFlight: Set<ServerResponse>;
  /** A stop has closed the listener: every response closes its connection (the client's next one is refused). */
  draining: boolean;
  /** The stop's drain window has ended: connections are closed as soon as they are idle. */
  drained: boolean;
}

/**
 * How long, once its listener is closed, a stop still answers requests that arrive on keep-alive connections
 * already open: a client that sent one just before, or sends one now, gets its answer (closing its connection)
 * instead of a reset. Connections still idle when the window ends are closed.
 */
export const DRAIN_WINDOW_MS = 500;

const states = new WeakMap<Server, ServerState>();

/** How often Node looks for requests past their headers or request deadline (its default is 30 s). */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/** The prototypes an Express app gives every request and response it handles (app.request, app.response). */
export interface AppPrototypes {
  request: object;
  response: object;
}

/**
 * Request and response classes whose objects are born with the app's prototypes. Express sets each request's
 * and response's prototype to its own as it takes them; an object whose prototype changes after it was built
 * loses V8's optimised shape, and Node's own HTTP code then runs slowly on it for the rest of the request. Born
 * with that prototype, Express's change is no change. (Node's classes are plain constructor functions.)
 */
function classesFor(prototypes: AppPrototypes): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  function AppRequest(this: IncomingMessage, ...args: ConstructorParameters<typeof IncomingMessage>) {
    IncomingMessage.apply(this, args);
  }
  AppRequest.prototype = prototypes.request;
  function AppResponse(this: ServerResponse, ...args: ConstructorParameters<typeof ServerResponse>) {
    ServerResponse.apply(this, args);
  }
  AppResponse.prototype = prototypes.response;
  return { IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse };
}

/** A request Node's HTTP parser refused before the app saw it: its status, and the parser's code for why. */
export interface ClientRefusal {
  status: 400 | 408 | 431;
  reason: string;
  client: string | undefined;
}

export interface HttpServerOptions {
  /** For an Express app, the app's own prototypes (see classesFor). */
  prototypes?: AppPrototypes;
  /** A request declaring a longer body is not told `100 Continue`: the app refuses it without its body. */
  maxBodyBytes?: number;
  /** Hears of every request the parser refused (malformed, headers too large, too slow). */
  onRefusal?: (refusal: ClientRefusal) => void;
}

/** What Node itself answers the parser's refusals with, when nobody listens for them. */
const REFUSAL_STATUS: Record<string, 408 | 431> = { ERR_HTTP_REQUEST_TIMEOUT: 408, HPE_HEADER_OVERFLOW: 431 };

/**
 * The HTTP server around a request listener. Slow or endless clients cannot hold the process: the headers
 * (HEADERS_TIMEOUT) and the whole request (REQUEST_TIMEOUT) have deadlines, checked every second, past which
 * it answers 408 and closes the connection; an idle keep-alive connection is closed after
 * KEEP_ALIVE_TIMEOUT. It counts the requests in flight so that a stop can wait for them (stopServer).
 */
export function createHttpServer(listener: RequestListener, timeouts: ServerTimeouts = DEFAULT_SERVER_TIMEOUTS, options: HttpServerOptions = {}): Server {
  const { prototypes, maxBodyBytes, onRefusal } = options;
  const server = createServer({
    headersTimeout: timeouts.headersTimeoutSeconds * 1000,
    requestTimeout: timeouts.requestTimeoutSeconds * 1000,
    keepAliveTimeout: timeouts.keepAliveTimeoutSeconds * 1000,
    connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
    ...(prototypes ? classesFor(prototypes) : {}),
  });
  const state: ServerState = { inFlight: new Set(), draining: false, drained: false };
  states.set(server, state);
  server.on('request', (req, res) => {
    state.inFlight.add(res);
    res.once('close', () => {
      state.inFlight.delete(res);
      // After the drain window, a connection whose response had already started when the stop began is kept
      // alive by Node; close it as soon as it has nothing more to do.
      if (state.drained) setImmediate(() => server.closeIdleConnections());
    });
    // While draining, a request that arrives on an open keep-alive connection is served, and its
    // connection closed after it: the client (nginx) opens its next one to another instance.
    if (state.draining) res.setHeader('Connection', 'close');
    listener(req, res);
  });
  if (maxBodyBytes !== undefined) {
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      if (!(Number(req.headers['content-length']) > maxBodyBytes)) res.writeContinue();
      server.emit('request', req, res);
    });
  }
  // As Node answers them (the status and Connection: close), and reported; a client that went away is not one.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const status = REFUSAL_STATUS[error.code ?? ''] ?? 400;
    onRefusal?.({ status, reason: error.code ?? 'malformed', client: socket.remoteAddress });
    if (socket.bytesWritten === 0) socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
    socket.destroy();
  });
  return server;
}

/**
 * Listens on host:port; resolves with the port (the one chosen when port is 0). A failure is a StartupError
 * naming the address and, for a port in use, the setting to change.
 */
export function startServer(server: Server, options: { host: string; port: number; what?: string; portSetting?: string }): Promise<number> {
  const { host, port, what = 'listen', portSetting = 'PORT' } = options;
  return new Promise<number>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? `the address is already in use (set ${portSetting} or HOST)` : error.message;
      reject(new StartupError(`cannot ${what} on ${host}:${port}: ${why}`, { cause: error }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Where this process reaches a listener: its own address, or the loopback one of its family when it listens
 * on every address. Undefined for a server that is not listening on TCP.
 */
function listenerAddress(server: Server): { host: string; port: number } | undefined {
  const address = server.address();
  if (address === null || typeof address === 'string') return undefined;
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return { host, port: address.port };
}

/**
 * Closes the listener without resetting the connections already made. The kernel completes a connection, and
 * takes the client's request on it, before the server accepts it, and Node accepts one connection per turn of
 * its event loop: under load, a burst of new connections waits in the listener's queue for many turns. Closing
 * the listener resets every one still there, and their clients cannot tell that reset from a request lost on
 * the way. So, given its address, this connects to the listener itself and closes it when that connection is
 * accepted: the queue is first in, first out, so every connection made before has been accepted by then. One
 * made meanwhile is reset, not refused; the stop does not send Connection: close until the listener is closed
 * (on.closing), so that its own clients, told to reconnect, are refused instead. Without an address, or if that
 * connection fails, it closes the listener at once. Returns what closes it at once (when the wait runs out, at
 * a cut). on.closed: once no connection is left.
 */
function closeListener(server: Server, address: { host: string; port: number } | undefined, on: { closing: () => void; closed: () => void }): () => void {
  let closing = false;
  let marker: Socket | undefined;
  const onConnection = (socket: Socket) => {
    if (socket.remotePort !== marker?.localPort || socket.remoteAddress !== marker?.localAddress) return;
    socket.destroy();
    close();
  };
  const close = () => {
    if (closing) return;
    closing = true;
    server.off('connection', onConnection);
    marker?.destroy();
    on.closing();
    // net.Server's close stops accepting and calls back once no connection is left; http.Server's own close
    // would also close the idle keep-alive connections at once, resetting a request a client is sending on one.
    NetServer.prototype.close.call(server, on.closed);
  };
  if (!address) {
    close();
    return close;
  }
  server.on('connection', onConnection);
  marker = connect(address.port, address.host);
  marker.once('error', close);
  return close;
}

/**
 * Stops a server without losing a request. First it takes the connections already made and closes the
 * listener (closeListener), serving as usual meanwhile; it waits for them until a drain window before the
 * deadline at most. From then on every response carries `Connection: close`, and for the drain window
 * (DRAIN_WINDOW_MS) the connections open are still served, so that a request already on its way is answered
 * rather than reset; then the idle ones are closed. Requests in flight finish; once every connection has
 * closed, it resolves. Requests still running after timeoutMs, or when `force` is aborted (a second signal),
 * have their connections cut. It always resolves.
 */
export function stopServer(server: Server, options: { timeoutMs: number; force?: AbortSignal }): Promise<StopReport> {
  const state = states.get(server) ?? { inFlight: new Set<ServerResponse>(), draining: false, drained: false };
  const report: StopReport = { inFlight: state.inFlight.size, cut: 0, forced: false };
  const queueMs = Math.max(0, options.timeoutMs - DRAIN_WINDOW_MS);
  const address = queueMs > 0 ? listenerAddress(server) : undefined;

  return new Promise<StopReport>((resolve) => {
    let drain: NodeJS.Timeout | undefined;
    const endDrain = () => {
      state.drained = true;
      // After the event loop's next look at the sockets: a request that reached an idle connection while the
      // loop was busy (this timer then fires late, before the sockets are read) makes it busy, not idle.
      setImmediate(() => server.closeIdleConnections());
    };
    const cut = () => {
      clearTimeout(drain);
      state.drained = true;
      stopAccepting();
      if (report.forced) return;
      report.forced = state.inFlight.size > 0;
      report.cut = state.inFlight.size;
      server.closeAllConnections();
    };
    const deadline = setTimeout(cut, options.timeoutMs);
    options.force?.addEventListener('abort', cut, { once: true });
    const stopAccepting = closeListener(server, address, {
      closing: () => {
        state.draining = true;
        for (const res of state.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
        if (!state.drained) drain = setTimeout(endDrain, DRAIN_WINDOW_MS);
      },
      closed: () => {
        clearTimeout(queue);
        clearTimeout(drain);
        clearTimeout(deadline);
        options.force?.removeEventListener('abort', cut);
        resolve(report);
      },
    });
    const queue = address ? setTimeout(stopAccepting, queueMs) : undefined;
    if (options.force?.aborted) cut();
  });
}

/** How many requests the server is answering now. */
export function inFlightRequests(server: Server): number {
  return states.get(server)?.inFlight.size ?? 0;
}

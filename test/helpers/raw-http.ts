import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** The request target exactly as it goes out (already encoded). */
  target: string;
  /** The other header fields, in order: pairs (a name may repeat), or a record whose undefined values are left out. */
  headers?: ReadonlyArray<readonly [string, string]> | Readonly<Record<string, string | undefined>>;
  /** A string goes out as UTF-8. */
  body?: Buffer | string;
  /**
   * By default the body's length, sent where there is a body or the method expects one (all but GET, HEAD,
   * DELETE and OPTIONS); a number is sent whatever the body is; false sends none.
   */
  contentLength?: number | false;
}

/** Methods whose requests carry no Content-Length unless they have a body. */
const WITHOUT_BODY = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * A request's bytes, written out by hand: the HTTP/1.1 request line, `Host: 127.0.0.1:<port>` unless the
 * headers hold a Host, the headers, Content-Length, a blank line and the body. Nothing else is added.
 */
export function rawRequest(port: number, request: RawRequest): Buffer {
  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : (request.body ?? Buffer.alloc(0));
  const headers: ReadonlyArray<readonly [string, string | undefined]> = Array.isArray(request.headers)
    ? request.headers
    : Object.entries(request.headers ?? {});
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  if (!headers.some(([name]) => name.toLowerCase() === 'host')) lines.push(`Host: 127.0.0.1:${port}`);
  for (const [name, value] of headers) if (value !== undefined) lines.push(`${name}: ${value}`);
  const contentLength = request.contentLength ?? (body.length > 0 || !WITHOUT_BODY.has(request.method) ? body.length : false);
  if (contentLength !== false) lines.push(`Content-Length: ${contentLength}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

export interface PartlySent {
  /** The connection's local port, once the bytes not held back have been handed to the kernel. */
  written: Promise<number>;
  /** Sends the bytes held back. */
  finish(): void;
  /** Everything the server sent, as UTF-8 text, once the connection has closed (a reset closes it too). */
  received: Promise<string>;
}

/**
 * Sends all of a request but its last `heldBack` bytes on a connection of its own: the server keeps the
 * request in flight, waiting for the rest, until finish() sends it.
 */
export function sendPartly(port: number, request: Buffer, heldBack: number): PartlySent {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  const received = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  const split = request.length - heldBack;
  const written = new Promise<number>((resolve) => socket.write(request.subarray(0, split), () => resolve(socket.localPort as number)));
  return { written, finish: () => socket.write(request.subarray(split)), received };
}

/**
 * Resolves with the next request that an HTTP server in this process reads the head of (Node's diagnostics
 * channel http.server.request.start), once the server has emitted 'request' for it. Call it before the request
 * goes out.
 */
export function requestArrival(): Promise<IncomingMessage> {
  return new Promise((resolve) => {
    const arrived = (message: unknown) => {
      unsubscribe('http.server.request.start', arrived);
      resolve((message as { request: IncomingMessage }).request);
    };
    subscribe('http.server.request.start', arrived);
  });
}

export interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/**
 * Sends request bytes exactly as given (no client adds or fixes a header) and reads one response, framed
 * by its Content-Length, which every response of ours must carry.
 */
export function sendRaw(port: number, request: Buffer, options: { head?: boolean } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within 5 s; got: ${received.toString('latin1').slice(0, 300)}`));
    }, 5000);
    const tryParse = (ended: boolean) => {
      const split = received.indexOf('\r\n\r\n');
      if (split < 0) return ended ? fail('connection closed before the headers ended') : undefined;
      const [statusLine = '', ...lines] = received.subarray(0, split).toString('latin1').split('\r\n');
      const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const length = headers.get('content-length');
      if (length === undefined) return fail(`no Content-Length in: ${statusLine} ${[...headers.keys()].join(', ')}`);
      const bodyLength = options.head ? 0 : Number(length);
      if (received.length < split + 4 + bodyLength) return ended ? fail('connection closed before the body ended') : undefined;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: received.subarray(split + 4, split + 4 + bodyLength) });
    };
    const fail = (message: string) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new Error(message));
    };
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('error', (error) => fail(error.message));
    socket.write(request);
  });
}

/** Stack frames (.NET or Node) and source paths must never reach a caller. */
export function expectNoStackTrace(response: RawResponse): void {
  const text = response.body.toString('latin1');
  expect(text).not.toMatch(/\n\s*at /);
  expect(text).not.toMatch(/\/src\/|\.ts:\d+|node_modules|\bError: /);
}

/** Sends a request written out by rawRequest and reads its answer, which must carry its own length and no stack trace. */
export async function sendChecked(port: number, request: RawRequest): Promise<RawResponse> {
  const response = await sendRaw(port, rawRequest(port, request));
  expect(response.headers.get('content-length')).toBe(String(response.body.length));
  expectNoStackTrace(response);
  return response;
}

/** A response's status, Content-Type and body (as UTF-8), compared at once. */
export function expectResponse(response: RawResponse, status: number, contentType: string, body: string): void {
  expect({ status: response.status, contentType: response.headers.get('content-type'), body: response.body.toString('utf8') }).toEqual({
    status,
    contentType,
    body,
  });
}

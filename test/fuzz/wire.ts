import { connect } from 'node:net';
import { rawRequest } from '../helpers/raw-http.js';

/**
 * A request as bytes on the wire: the client adds Host (unless given), a correct Content-Length and
 * `Connection: close`, and nothing else, so that every request is well framed whatever its other headers.
 */
export interface WireRequest {
  method: string;
  /** The request target, already encoded (only characters Node's HTTP parser accepts in a target). */
  target: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

export interface WireResponse {
  status: number;
  /** Header names lower-cased; a header sent twice keeps every value. */
  headers: Map<string, string[]>;
  body: Buffer;
  /** The bytes of the status line and headers, for failure messages. */
  head: string;
}

export function header(response: WireResponse, name: string): string | undefined {
  return response.headers.get(name)?.[0];
}

/** The request's bytes: what `exchange` sends, exactly; `close` adds `Connection: close`. */
export function requestBytes(request: WireRequest, port: number, close = true): Buffer {
  const headers = close ? [...request.headers, ['Connection', 'close'] as const] : request.headers;
  return rawRequest(port, { method: request.method, target: request.target, headers, body: request.body });
}

/** A response's status and headers (names lower-cased, a header sent twice keeping every value), or why it is no HTTP response. */
function parseHead(headText: string): { status: number; headers: Map<string, string[]> } | Error {
  const [statusLine = '', ...lines] = headText.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine);
  if (!status) return new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return { status: Number(status[1]), headers };
}

/**
 * Sends one request on a fresh connection and reads until the server closes it (the request asked for
 * `Connection: close`). It fails, with what arrived, when the connection closes or resets before one
 * complete response, when none arrives within `timeoutMs`, when the response has no Content-Length or is
 * chunked, or when the bytes after the head are not exactly Content-Length long (none for HEAD).
 */
export function exchange(port: number, request: WireRequest, options: { timeoutMs?: number } = {}): Promise<WireResponse> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const head = request.method === 'HEAD';
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (error: Error | null, response?: WireResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(response as WireResponse);
    };
    const describe = () => received.toString('latin1').slice(0, 400);
    const timer = setTimeout(() => settle(new Error(`no complete response within ${timeoutMs} ms; got: ${JSON.stringify(describe())}`)), timeoutMs);

    /** The response, once every byte it announces has arrived; null while incomplete; an Error when it can never be valid. */
    const parse = (ended: boolean): WireResponse | Error | null => {
      const split = received.indexOf('\r\n\r\n');
      if (split < 0) return ended ? new Error(`connection closed before the headers ended: ${JSON.stringify(describe())}`) : null;
      const headText = received.subarray(0, split).toString('latin1');
      const parsedHead = parseHead(headText);
      if (parsedHead instanceof Error) return parsedHead;
      const { status, headers } = parsedHead;
      if (headers.has('transfer-encoding')) return new Error(`a ${headers.get('transfer-encoding')?.join(',')} response: ${headText}`);
      const lengths = headers.get('content-length');
      if (lengths?.length !== 1 || !/^\d+$/.test(lengths[0] ?? '')) return new Error(`no single Content-Length: ${headText}`);
      const declared = Number(lengths[0]);
      const expected = head ? 0 : declared;
      const rest = received.length - (split + 4);
      if (rest > expected) return new Error(`${rest} bytes after the head, Content-Length says ${expected}: ${headText}`);
      if (rest < expected) return ended ? new Error(`connection closed after ${rest} of ${expected} body bytes: ${headText}`) : null;
      if (!ended) return null;
      return { status, headers, body: received.subarray(split + 4), head: headText };
    };

    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const result = parse(false);
      if (result instanceof Error) settle(result);
    });
    socket.on('end', () => {
      const result = parse(true);
      if (result instanceof Error) settle(result);
      else if (result) settle(null, result);
    });
    socket.on('error', (error) => {
      // A server that answers without reading a large body may reset the connection after its response.
      const result = parse(true);
      if (result && !(result instanceof Error)) settle(null, result);
      else settle(new Error(`${error.message} before a complete response; got: ${JSON.stringify(describe())}`));
    });
    socket.write(requestBytes(request, port));
  });
}

/**
 * Sends the requests back to back on one keep-alive connection (the last asks for `Connection: close`) and
 * reads the responses in order, each framed by its Content-Length. The server may close the connection
 * early, after a response that says `Connection: close`; the responses read until then are returned.
 */
export function exchangePipelined(port: number, requests: readonly WireRequest[], options: { timeoutMs?: number } = {}): Promise<WireResponse[]> {
  const timeoutMs = options.timeoutMs ?? 5000;
  // All but the last keep the connection alive.
  const bytes = Buffer.concat(requests.map((request, i) => requestBytes(request, port, i === requests.length - 1)));
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) return reject(error);
      const parsed = parseAll();
      if (parsed instanceof Error) reject(parsed);
      else resolve(parsed);
    };
    const timer = setTimeout(() => finish(new Error(`no end within ${timeoutMs} ms; got: ${JSON.stringify(received.toString('latin1').slice(0, 600))}`)), timeoutMs);

    const parseAll = (): WireResponse[] | Error => {
      const responses: WireResponse[] = [];
      let offset = 0;
      for (const request of requests) {
        if (offset === received.length) break;
        const split = received.indexOf('\r\n\r\n', offset);
        if (split < 0) return new Error(`response ${responses.length + 1} cut in its head: ${JSON.stringify(received.subarray(offset).toString('latin1'))}`);
        const headText = received.subarray(offset, split).toString('latin1');
        const parsedHead = parseHead(headText);
        if (parsedHead instanceof Error) return parsedHead;
        const { status, headers } = parsedHead;
        const lengths = headers.get('content-length');
        if (lengths?.length !== 1) return new Error(`no single Content-Length: ${headText}`);
        const length = request.method === 'HEAD' ? 0 : Number(lengths[0]);
        const end = split + 4 + length;
        if (end > received.length) return new Error(`response ${responses.length + 1} cut in its body: ${headText}`);
        responses.push({ status, headers, body: received.subarray(split + 4, end), head: headText });
        offset = end;
      }
      if (offset !== received.length) return new Error(`${received.length - offset} bytes after the last response`);
      return responses;
    };

    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
    });
    socket.on('end', () => finish(null));
    // A server that closes after a response may reset the connection while requests are still unread.
    socket.on('error', () => finish(null));
    socket.write(bytes);
  });
}

import { connect } from 'node:net';

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

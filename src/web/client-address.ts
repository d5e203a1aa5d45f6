import type { IncomingMessage } from 'node:http';

/**
 * The client's address for logs and throttles: the socket's, or behind a trusted proxy the last
 * X-Forwarded-For entry, the one that proxy added (earlier entries are whatever the client sent).
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const header = trustProxy ? req.headers['x-forwarded-for'] : undefined;
  const last = (Array.isArray(header) ? header.join(',') : header)?.split(',').at(-1)?.trim();
  return last || req.socket.remoteAddress || 'unknown';
}

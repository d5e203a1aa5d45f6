import type { IncomingMessage } from 'node:http';

/**
 * The id each request is known by, set once per request by src/ops/request-context.ts and written into every
 * log line about the request. It hangs off the request rather than an AsyncLocalStorage: the storage's
 * promise hooks cost every call more than a fifth of its time (measured with npm run bench).
 */
const requestIds = new WeakMap<IncomingMessage, string>();

export function setRequestId(req: IncomingMessage, id: string): void {
  requestIds.set(req, id);
}

/** The request's id, or undefined for a request the server's listener has not seen. */
export function requestIdOf(req: IncomingMessage): string | undefined {
  return requestIds.get(req);
}

import { AsyncLocalStorage } from 'node:async_hooks';

/** What is known about the request being served; set once per request by src/ops/request-context.ts. */
export interface RequestContext {
  readonly requestId: string;
}

/**
 * The request a piece of code runs for, carried across awaits and callbacks. It lives here, in src/log, so
 * that the logger can read it without depending on the HTTP layer that fills it.
 */
export const requestContext = new AsyncLocalStorage<RequestContext>();

/** The id of the request being served, or undefined outside a request (start-up, the purge, shutdown). */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

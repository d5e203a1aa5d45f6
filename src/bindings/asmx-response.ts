import type { ServerResponse } from 'node:http';
import { REQUEST_ID_HEADER, requestIdOf } from '../web/request-id.js';
import { STRICT_TRANSPORT_SECURITY, strictTransportOf } from '../web/strict-transport.js';

export const CONTENT_TYPE = {
  xml: 'text/xml; charset=utf-8',
  soap12: 'application/soap+xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
} as const;

/** ASMX sends "private, max-age=0" on results and faults, "private" on empty errors and error pages. */
export type CacheControl = 'private' | 'private, max-age=0';

export interface AsmxResponse {
  status: number;
  contentType: string;
  body: string;
  cacheControl?: CacheControl;
  /** Sent as Retry-After (a throttled caller: 429 on the HTTP bindings, the fault's 500 on SOAP). */
  retryAfterSeconds?: number;
  /** HEAD: every header of the full response, no body. */
  headOnly?: boolean;
}

/**
 * Writes a response the way ASMX does: with a Content-Length, never chunked. Like IIS, 400 and 5xx keep the
 * connection open (PHP SoapClient fails on a close it was not told about; we tell nobody). The request's id
 * is echoed in X-Request-Id, and Strict-Transport-Security given to a request that came over HTTPS. The headers go to writeHead at once, which Node takes without the per-header
 * bookkeeping of setHeader, and the body to res.end as a string: Node then sends it in one write with the
 * headers, where a Buffer takes a writev of two.
 */
export function sendAsmx(res: ServerResponse, response: AsmxResponse): void {
  const headers = [
    'Content-Type',
    response.contentType,
    'Cache-Control',
    response.cacheControl ?? 'private',
    'Content-Length',
    String(Buffer.byteLength(response.body, 'utf8')),
    // A browser must never read an answer as anything but its type: the text errors echo the method name.
    'X-Content-Type-Options',
    'nosniff',
    REQUEST_ID_HEADER,
    requestIdOf(res.req),
  ];
  if (response.retryAfterSeconds !== undefined) headers.push('Retry-After', String(response.retryAfterSeconds));
  const strictTransport = strictTransportOf(res.req);
  if (strictTransport !== undefined) headers.push(STRICT_TRANSPORT_SECURITY, strictTransport);
  res.writeHead(response.status, headers);
  if (response.headOnly) res.end();
  else res.end(response.body, 'utf8');
}

import type { CacheControl } from '../asmx-response.js';
import type { FaultRole } from '../soap/protocol.js';

/**
 * How one binding answers an error, after ASP.NET's ASMX:
 * - page: an HTML error page (ASP.NET's yellow screen, without its stack);
 * - text: the HTTP GET/POST bindings' text/plain message and a line end;
 * - empty: a SOAP status with no body (an XmlException read as a client fault);
 * - fault: a SOAP fault envelope, status 500. `prefixed` faults happened on the server side of .NET's
 *   dispatch and start with "Server was unable to process request. ---> ".
 */
export type ErrorWire =
  | { kind: 'page'; status: number }
  | { kind: 'text'; status: number; cache: CacheControl }
  | { kind: 'empty'; status: 400 | 415 }
  | { kind: 'fault'; role: FaultRole; prefixed: boolean; detail: boolean };

/** Where an error is answered: before a binding took the request (endpoint), or by one of the bindings. */
export type ErrorBinding = 'endpoint' | 'soap' | 'http';

export const page = (status: number) => ({ kind: 'page', status }) as const;
export const text = (status: number, cache: CacheControl = 'private') => ({ kind: 'text', status, cache }) as const;
export const empty = (status: 400 | 415) => ({ kind: 'empty', status }) as const;
export const fault = (role: FaultRole, prefixed = false, detail = true) => ({ kind: 'fault', role, prefixed, detail }) as const;

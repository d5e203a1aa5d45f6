import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/config.js';
import { requestScheme } from './endpoint-url.js';

export const STRICT_TRANSPORT_SECURITY = 'Strict-Transport-Security';

/** The value given to each request, for the responses written with all their headers at once (sendAsmx). */
const given = new WeakMap<IncomingMessage, string>();

/**
 * Strict-Transport-Security for a request that came over HTTPS (directly, or through a trusted proxy that says
 * so in X-Forwarded-Proto), never over plain HTTP, where a browser ignores it and a man in the middle could
 * forge it; none with HSTS_MAX_AGE=0. The value returned is also kept for the request (strictTransportOf).
 */
export function strictTransportSecurity(config: Pick<Config, 'hstsMaxAgeSeconds' | 'trustProxy'>): (req: IncomingMessage) => string | undefined {
  if (config.hstsMaxAgeSeconds === 0) return () => undefined;
  const value = `max-age=${config.hstsMaxAgeSeconds}`;
  return (req) => {
    if (requestScheme(req, config) !== 'https') return undefined;
    given.set(req, value);
    return value;
  };
}

/** The Strict-Transport-Security value strictTransportSecurity gave the request, if any. */
export function strictTransportOf(req: IncomingMessage): string | undefined {
  return given.get(req);
}

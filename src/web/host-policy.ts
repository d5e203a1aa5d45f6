import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/config.js';
import { requestHost } from './endpoint-url.js';

/** The names a browser on the service's own machine uses. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether the host (a URL's hostname, or a Host header's name) is one of the loopback names above. */
export function isLoopbackName(host: string): boolean {
  return LOOPBACK.has(host);
}

function matches(patterns: readonly string[], host: string): boolean {
  return patterns.some((pattern) => pattern === '*' || pattern === host || (pattern.startsWith('*.') && host.endsWith(pattern.slice(1))));
}

export interface HostPolicy {
  /** ALLOWED_HOSTS, when it is set: whether the service answers a request naming this host at all. */
  serves(req: IncomingMessage): boolean;
  /**
   * Whether the request's host may stand for the service's own origin, which the sign-in pages build their
   * links, cookies and redirects from: always with PUBLIC_URL (the origin is that), any allowed host with
   * ALLOWED_HOSTS, and otherwise only a loopback name, so that a forged Host decides nothing.
   */
  ownsOrigin(req: IncomingMessage): boolean;
}

export function createHostPolicy(config: Config): HostPolicy {
  const allowed = config.allowedHosts;
  const named = (req: IncomingMessage) => requestHost(req, config);
  const serves = (req: IncomingMessage) => {
    if (allowed === undefined) return true;
    const host = named(req);
    return host !== undefined && matches(allowed, host);
  };
  return {
    serves,
    ownsOrigin(req) {
      if (config.publicUrl !== undefined) return true;
      if (allowed !== undefined) return serves(req);
      const host = named(req);
      return host !== undefined && isLoopbackName(host);
    },
  };
}

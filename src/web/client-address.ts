import type { IncomingMessage } from 'node:http';
import type { ProxyTrust } from '../config/config.js';

/**
 * The client's address for logs and throttles: the socket's, unless the connection comes from a trusted proxy
 * (TRUST_PROXY). Then X-Forwarded-For is read from its right end, where each proxy appended the address it
 * saw: the first entry that is not itself a trusted proxy is the client (earlier entries are whatever the
 * client sent). With TRUST_PROXY=true every peer is trusted, and the last entry is the client.
 */
export function clientAddress(req: IncomingMessage, trust: ProxyTrust): string {
  const peer = req.socket.remoteAddress;
  const header = trust.trusts(peer) ? req.headers['x-forwarded-for'] : undefined;
  const entries = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  let index = entries.length - 1;
  if (!trust.any) while (index > 0 && trust.trusts(entries[index])) index -= 1;
  return entries[index] || peer || 'unknown';
}

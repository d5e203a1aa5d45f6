import type { IncomingMessage } from 'node:http';

/**
 * What a call says of where it comes from, beyond its address: the software that sent it (its User-Agent) and,
 * when a browser sent it from a page, that page's origin (its Origin header, or its Referer's origin). The caller
 * claims both; neither proves anything.
 */
export interface CallSender {
  software: string | undefined;
  origin: string | undefined;
}

export function callSender(req: IncomingMessage): CallSender {
  const { origin, referer } = req.headers;
  const fromReferer = referer === undefined ? undefined : URL.parse(referer)?.origin;
  return { software: req.headers['user-agent'], origin: origin ?? (fromReferer === 'null' ? undefined : fromReferer) };
}

import type { Logger } from './logger.js';

/** A request refused before any binding took it: by Node's parser (malformed, too large a head, too slow) or by the app. */
export interface Refusal {
  status: number;
  /** The parser's error code or the app's error code. */
  reason: string;
  client: string | null;
  /** The path without its query, once the request got that far. */
  path?: string;
  requestId?: string | undefined;
}

/** One `refused` line per refusal, and the count by status; the one place both kinds of refusal are recorded. */
export function refusalLog(logger: Logger, count?: (status: number) => void): (refusal: Refusal) => void {
  return (refusal) => {
    count?.(refusal.status);
    logger.warn('refused', { ...refusal });
  };
}

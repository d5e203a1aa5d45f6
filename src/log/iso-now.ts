let lastMs = Number.NaN;
let lastIso = '';

/**
 * The current time in ISO 8601 (2026-01-01T12:00:00.000Z). Formatting a Date is a sizeable part of what a log
 * line costs, so the lines of one millisecond share one string.
 */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/**
 * .NET's DateTime ticks: 100-nanosecond intervals since 0001-01-01T00:00:00 UTC. A Forms ticket stores its
 * issue and expiration dates as UTC ticks, finer than a JavaScript Date's milliseconds, so the ticket keeps
 * them as bigints and converts only where a Date is needed.
 */

/** Ticks at 1970-01-01T00:00:00Z. */
const TICKS_AT_UNIX_EPOCH = 621_355_968_000_000_000n;
const TICKS_PER_MILLISECOND = 10_000n;
/** DateTime.MaxValue.Ticks (9999-12-31T23:59:59.9999999); DateTime refuses more, and anything below zero. */
export const MAX_TICKS = 3_155_378_975_999_999_999n;

/** Whether .NET's DateTime can hold these ticks. */
export function ticksInRange(ticks: bigint): boolean {
  return ticks >= 0n && ticks <= MAX_TICKS;
}

/** The ticks of a Date (whole milliseconds). */
export function ticksFromDate(date: Date): bigint {
  return BigInt(date.getTime()) * TICKS_PER_MILLISECOND + TICKS_AT_UNIX_EPOCH;
}

/** The Date of some ticks, the part below a millisecond dropped (rounded toward the past). */
export function dateFromTicks(ticks: bigint): Date {
  const sinceEpoch = ticks - TICKS_AT_UNIX_EPOCH;
  const wholeMs = sinceEpoch / TICKS_PER_MILLISECOND - (sinceEpoch % TICKS_PER_MILLISECOND < 0n ? 1n : 0n);
  return new Date(Number(wholeMs));
}

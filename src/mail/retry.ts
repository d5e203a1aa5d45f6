/** When a mail the server did not take is tried again, and when it is given up. */
export interface RetryPolicy {
  /** The wait after the first failed attempt; each further one doubles it. */
  firstDelayMs: number;
  /** The longest wait between two attempts. */
  maxDelayMs: number;
  /** A mail not delivered this long after it was queued is dropped (a recovery mail: once its link has expired). */
  maxAgeMs: number;
  /** Up to this share of each wait is taken off at random, so that mails queued together do not retry together. */
  jitter: number;
}

/** 5 s, 10 s, 20 s … up to 10 minutes between attempts, for a day: a mail server's restart or a day's outage. */
export const DEFAULT_RETRY: RetryPolicy = { firstDelayMs: 5_000, maxDelayMs: 10 * 60_000, maxAgeMs: 24 * 60 * 60_000, jitter: 0.5 };

/** The wait after failed attempt number `attempt` (1 for the first): exponential, capped, less a random share. */
export function retryDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const exponential = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential * (1 - policy.jitter * random()));
}

/** What a failed attempt tells, without the server's words (they may quote the recipient or the message). */
export interface DeliveryFailure {
  /** Sending it again would get the same answer. */
  permanent: boolean;
  /** nodemailer's error code: ECONNECTION, ETIMEDOUT, EENVELOPE, EAUTH, … */
  code: string | undefined;
  /** The SMTP reply code, when the server answered. */
  smtpCode: number | undefined;
  /** The system's error under nodemailer's, such as ECONNREFUSED. */
  cause: string | undefined;
}

/** Errors nodemailer raises before anything reaches a server, which another attempt would raise again. */
const PERMANENT_LOCAL = new Set(['EENVELOPE', 'EMESSAGE', 'ECONFIG', 'ENOAUTH', 'ESTREAM']);

interface NodemailerFailure {
  code?: unknown;
  responseCode?: unknown;
  permanent?: unknown;
  originalCode?: unknown;
}

/**
 * A 5xx reply is permanent (nodemailer marks it, leaving out 503, a session in the wrong state); a 4xx reply,
 * a refused or dropped connection, a time-out or a TLS failure are not: the server may take the mail later.
 */
export function deliveryFailure(error: unknown): DeliveryFailure {
  const failure: NodemailerFailure = typeof error === 'object' && error !== null ? error : {};
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  const smtpCode = typeof failure.responseCode === 'number' ? failure.responseCode : undefined;
  const permanent = smtpCode === undefined ? code !== undefined && PERMANENT_LOCAL.has(code) : failure.permanent === true;
  return { permanent, code, smtpCode, cause: typeof failure.originalCode === 'string' ? failure.originalCode : undefined };
}

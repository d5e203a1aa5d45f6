import type { Logger } from '../log/logger.js';
import type { MailKind } from './mail.js';
import { maskedAddress } from './masked-address.js';
import { DEFAULT_RETRY, deliveryFailure, retryDelay, type DeliveryFailure, type RetryPolicy } from './retry.js';

/**
 * How an attempt or a mail ended, as counted: sent; retried (a failed attempt, tried again later); failed (the
 * server refused it for good); expired (still not delivered at its maximum age); dropped (the queue was full,
 * or the service stopped before it could be delivered).
 */
export const MAIL_RESULTS = ['sent', 'retried', 'failed', 'expired', 'dropped'] as const;
export type MailResult = (typeof MAIL_RESULTS)[number];

/** Where mails are counted besides the log (mail_sent_total{kind,result}); src/ops/metrics.ts can implement it. */
export interface MailMetrics {
  mailSent(kind: MailKind, result: MailResult): void;
}

/** One message as the transport takes it; From and Reply-To are the transport's defaults. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** What delivers a message: nodemailer's transporter is one. The signal aborts the delivery under way. */
export interface MailTransport {
  sendMail(message: OutgoingMail & { signal: AbortSignal }): Promise<unknown>;
  close(): void;
}

export interface MailJob {
  kind: MailKind;
  message: OutgoingMail;
  /** A maximum age shorter than the policy's, for a mail that is useless later (a recovery link that expired). */
  maxAgeMs?: number | undefined;
}

/** The queue's clock and timers, injected so that tests move time without touching the SMTP client's or server's. */
export interface MailTimers {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` after `ms`, without keeping the process alive for it; the function returned cancels it. */
  after(ms: number, callback: () => void): () => void;
}

const systemTimers: MailTimers = {
  now: () => Date.now(),
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface MailQueueOptions {
  transport: MailTransport;
  logger: Logger;
  metrics?: MailMetrics | undefined;
  retry?: RetryPolicy | undefined;
  /** How many mails may wait at once; one more is dropped. */
  capacity?: number | undefined;
  timers?: MailTimers | undefined;
  /** A number in [0, 1) for the retries' jitter. */
  random?: (() => number) | undefined;
}

interface Entry {
  job: MailJob;
  queuedAt: number;
  deadline: number;
  attempts: number;
  dueAt: number;
}

/** Mails are few (one per recovery or account change); this many waiting means the server has been away long. */
const DEFAULT_CAPACITY = 1_000;

/**
 * Delivers mails in the background, one at a time, in the order they are due. enqueue() returns at once; a
 * failed attempt is retried with back-off (retry.ts) until the mail's maximum age, unless the server refused it
 * for good. Every outcome is logged and counted, the log naming the mail's kind, the attempt, the error's code
 * and a masked recipient: never the message, its link, nor the server's words. A mail waiting for its next
 * attempt keeps no process alive; stop() gives the queue its last chance to deliver.
 */
export class MailQueue {
  readonly #transport: MailTransport;
  readonly #logger: Logger;
  readonly #metrics: MailMetrics | undefined;
  readonly #retry: RetryPolicy;
  readonly #capacity: number;
  readonly #timers: MailTimers;
  readonly #random: () => number;
  #waiting: Entry[] = [];
  #inFlight: Entry | undefined;
  /** The attempt under way; it settles soon after #abort fires. */
  #attempting: Promise<void> = Promise.resolve();
  readonly #abort = new AbortController();
  /** Cancels the timer of the next attempt. */
  #cancelTimer: (() => void) | undefined;
  #wakeScheduled = false;
  #state: 'open' | 'draining' | 'closed' = 'open';
  /** Set by stop(): called when nothing waits and nothing is in flight. */
  #onIdle: (() => void) | undefined;
  #stopped: Promise<{ dropped: number }> | undefined;

  constructor(options: MailQueueOptions) {
    this.#transport = options.transport;
    this.#logger = options.logger;
    this.#metrics = options.metrics;
    this.#retry = options.retry ?? DEFAULT_RETRY;
    this.#capacity = options.capacity ?? DEFAULT_CAPACITY;
    this.#timers = options.timers ?? systemTimers;
    this.#random = options.random ?? Math.random;
  }

  /** Mails waiting or being delivered. */
  get pending(): number {
    return this.#waiting.length + (this.#inFlight === undefined ? 0 : 1);
  }

  enqueue(job: MailJob): void {
    if (this.#state !== 'open') return this.#drop(job, 0, 'stopped');
    if (this.pending >= this.#capacity) return this.#drop(job, 0, 'queue full');
    const now = this.#timers.now();
    const maxAgeMs = Math.min(this.#retry.maxAgeMs, job.maxAgeMs ?? Infinity);
    this.#waiting.push({ job, queuedAt: now, deadline: now + maxAgeMs, attempts: 0, dueAt: now });
    // The first attempt starts on a later turn of the event loop: nothing of it runs on the caller's.
    if (!this.#wakeScheduled) {
      this.#wakeScheduled = true;
      setImmediate(() => {
        this.#wakeScheduled = false;
        this.#wake();
      });
    }
  }

  /**
   * Takes no more mails, tries what waits once more at once (and again as its back-off allows), for up to
   * `graceMs`; then aborts the attempt under way, and drops, logs and counts what is still undelivered.
   * Resolves with how many were dropped; a second call gets the first one's answer.
   */
  stop(graceMs: number): Promise<{ dropped: number }> {
    this.#stopped ??= this.#drain(graceMs);
    return this.#stopped;
  }

  async #drain(graceMs: number): Promise<{ dropped: number }> {
    this.#state = 'draining';
    const now = this.#timers.now();
    for (const entry of this.#waiting) entry.dueAt = Math.min(entry.dueAt, now);
    // Real time, and a timer that keeps the process alive: the grace is how long a stop may take.
    await new Promise<void>((resolve) => {
      const grace = setTimeout(resolve, graceMs);
      this.#onIdle = () => {
        clearTimeout(grace);
        resolve();
      };
      this.#wake();
    });
    this.#state = 'closed';
    this.#cancelTimer?.();
    this.#abort.abort();
    await this.#attempting;
    const left = this.#waiting.splice(0);
    for (const entry of left) this.#drop(entry.job, entry.attempts, 'stopped');
    this.#transport.close();
    return { dropped: left.length };
  }

  /** Starts the attempt that is due, or sets the timer for the next one. */
  #wake(): void {
    if (this.#inFlight !== undefined || this.#state === 'closed') return;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    const next = this.#waiting.reduce<Entry | undefined>((soonest, entry) => (soonest === undefined || entry.dueAt < soonest.dueAt ? entry : soonest), undefined);
    if (next === undefined) {
      this.#onIdle?.();
      return;
    }
    const wait = next.dueAt - this.#timers.now();
    if (wait > 0) {
      this.#cancelTimer = this.#timers.after(wait, () => this.#wake());
      return;
    }
    this.#waiting.splice(this.#waiting.indexOf(next), 1);
    this.#inFlight = next;
    this.#attempting = this.#attempt(next).finally(() => {
      this.#inFlight = undefined;
      this.#wake();
    });
  }

  async #attempt(entry: Entry): Promise<void> {
    entry.attempts += 1;
    const { kind, message } = entry.job;
    try {
      await this.#transport.sendMail({ ...message, signal: this.#abort.signal });
    } catch (error) {
      this.#failed(entry, deliveryFailure(error));
      return;
    }
    this.#count(kind, 'sent');
    this.#logger.info('mail sent', { kind, attempt: entry.attempts, to: maskedAddress(message.to) });
  }

  #failed(entry: Entry, failure: DeliveryFailure): void {
    const { kind, message } = entry.job;
    const fields = { kind, attempt: entry.attempts, to: maskedAddress(message.to), error: failure.code, smtpCode: failure.smtpCode, cause: failure.cause };
    if (failure.permanent) {
      this.#count(kind, 'failed');
      this.#logger.error('mail refused', fields);
      return;
    }
    if (this.#state === 'closed') {
      // Aborted by stop(), which drops it with what waits.
      this.#waiting.push(entry);
      return;
    }
    const now = this.#timers.now();
    const delay = retryDelay(entry.attempts, this.#retry, this.#random);
    if (now + delay > entry.deadline) {
      this.#count(kind, 'expired');
      this.#logger.error('mail expired', { ...fields, ageSeconds: Math.round((now - entry.queuedAt) / 1000) });
      return;
    }
    entry.dueAt = now + delay;
    this.#waiting.push(entry);
    this.#count(kind, 'retried');
    this.#logger.warn('mail not delivered, will retry', { ...fields, retryInMs: delay });
  }

  #drop(job: MailJob, attempts: number, reason: 'stopped' | 'queue full'): void {
    this.#count(job.kind, 'dropped');
    this.#logger.error('mail dropped', { kind: job.kind, attempts, to: maskedAddress(job.message.to), reason });
  }

  #count(kind: MailKind, result: MailResult): void {
    this.#metrics?.mailSent(kind, result);
  }
}

/** Every mail the service sends, by the name its templates, logs and metrics use. */
export const MAIL_KINDS = ['recovery', 'password_changed', 'two_step_enabled', 'two_step_disabled', 'recovery_code_used', 'passkey_added'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** When and from where the member (or an administrator) did what a mail reports. */
export interface MailOrigin {
  /** Milliseconds since the epoch. */
  at: number;
  /** The client's address, as the sign-in pages log it; absent for a change made with the admin CLI. */
  client?: string | undefined;
  /** The device as a member recognises it ("Firefox on Windows"), not the raw User-Agent. */
  device?: string | undefined;
}

interface MailTo {
  /** The member's email address. */
  to: string;
  /** The name the mail greets, when the member has one. */
  name?: string | undefined;
  origin: MailOrigin;
}

/** Who made a change: the member on the account page, the member through a recovery link, or an administrator. */
export type PasswordChangedBy = 'account' | 'recovery' | 'admin';
export type TwoStepChangedBy = 'account' | 'admin';

/** One mail to send: its kind and what its templates show. */
export type Mail =
  | (MailTo & {
      kind: 'recovery';
      /** The recovery link: a secret, never logged. */
      link: string;
      /** How long the link works; the mail is not delivered later than that. */
      validMinutes: number;
    })
  | (MailTo & { kind: 'password_changed'; by: PasswordChangedBy })
  | (MailTo & { kind: 'two_step_enabled' | 'two_step_disabled'; by: TwoStepChangedBy })
  | (MailTo & {
      kind: 'recovery_code_used';
      /** Recovery codes the member has left. */
      remaining: number;
    })
  | (MailTo & {
      kind: 'passkey_added';
      /** The name the passkey was given (the device it was added on, unless the member named it). */
      passkeyName: string;
    });

/**
 * What the service sends mail through. send() returns at once: the mail is delivered in the background,
 * retried while the mail server is unavailable, and a failure is logged and counted, never thrown.
 */
export interface Mailer {
  send(mail: Mail): void;
}

/** The mailer an instance or an admin command runs with, and stops when it ends. */
export interface ServiceMailer extends Mailer {
  /** Delivers what waits for up to `graceMs`, then drops the rest; see MailQueue.stop. */
  stop(graceMs: number): Promise<{ dropped: number }>;
}

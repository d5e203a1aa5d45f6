import { z } from 'zod';
import { smtpTransportOptions } from '../mail/smtp-url.js';

// SMTP_URL, MAIL_FROM and MAIL_REPLY_TO: how the members' mail is sent (docs/configuration.md, "Mail").

/**
 * smtp:// or smtps://, checked by the rules the mailer reads it with (src/mail/smtp-url.ts), once, here. Their
 * messages name the setting first, which the problem's prefix already does; none repeats the URL, which may
 * hold a password.
 */
export const smtpUrl = z
  .string()
  .trim()
  .superRefine((url, ctx) => {
    try {
      smtpTransportOptions(url);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^SMTP_URL:? /, '') });
    }
  });

const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+$/;
/** "Example Society <no-reply@example.org>": a name (quoted or not) and the address in angle brackets. */
const NAMED_ADDRESS = /^[^<>\r\n]*<[^\s@<>",;]+@[^\s@<>",;]+>$/;

/** One bare address, such as help@example.org (a mailto: link's). */
export const bareMailAddress = z.string().trim().regex(ADDRESS, 'must be one email address, such as help@example.org');

/** One address for a header, bare or with a name; one line, so that no header can be slipped in after it. */
export const mailAddress = z
  .string()
  .trim()
  .refine((v) => ADDRESS.test(v) || NAMED_ADDRESS.test(v), 'must be one email address, or a name and an address such as "Example <no-reply@example.org>"');

/** The mail settings as the service runs with them, when SMTP_URL is set. */
export interface MailConfig {
  /** SMTP_URL: a secret (its password), masked wherever settings are listed. */
  readonly url: string;
  readonly from: string;
  readonly replyTo: string | undefined;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * MAIL_LOG writes every mail to the log, recovery links included: it is for trying the pages on a developer's
 * machine, so it is refused wherever the service may be a real one: with a mail server, under
 * NODE_ENV=production, with a PUBLIC_URL that is not a loopback address, or with ALLOWED_HOSTS.
 */
export function mailLogProblems(given: { mailLog: boolean | undefined; smtpUrlSet: boolean; publicUrl: string | undefined; allowedHostsSet: boolean; nodeEnv: string | undefined }): string[] {
  if (given.mailLog !== true) return [];
  const why = 'it writes members\' mail, recovery links included, to the log, for development only';
  const problems: string[] = [];
  if (given.smtpUrlSet) problems.push('MAIL_LOG: not with SMTP_URL (mail is either sent or written to the log)');
  if (given.nodeEnv === 'production') problems.push(`MAIL_LOG: refused when NODE_ENV=production (${why})`);
  if (given.publicUrl !== undefined && !LOOPBACK_HOSTS.has(new URL(given.publicUrl).host.replace(/:\d+$/, ''))) {
    problems.push(`MAIL_LOG: refused with a PUBLIC_URL that is not localhost, 127.0.0.1 or [::1] (${why})`);
  }
  if (given.allowedHostsSet) problems.push(`MAIL_LOG: refused with ALLOWED_HOSTS (${why})`);
  return problems;
}

/** SMTP_URL without MAIL_FROM would send mail from nobody: refused at the start. */
export function mailProblems(given: { smtpUrlSet: boolean; mailFromSet: boolean }): string[] {
  return given.smtpUrlSet && !given.mailFromSet ? ['MAIL_FROM: must be set when SMTP_URL is (the address the members\' mail comes from)'] : [];
}

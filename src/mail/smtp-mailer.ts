import nodemailer from 'nodemailer';
import type { Logger } from '../log/logger.js';
import type { Mail, ServiceMailer } from './mail.js';
import { MailQueue, type MailMetrics, type MailTimers } from './queue.js';
import type { RetryPolicy } from './retry.js';
import { smtpTransportOptions } from './smtp-url.js';
import { loadMailTemplates, type RenderedMail } from './templates.js';
import type { MailBranding } from './views.js';

/** SMTP_URL (or SMTP_URL_FILE), MAIL_FROM and MAIL_REPLY_TO. */
export interface MailSettings {
  /** smtp:// or smtps://, with the credentials in it if the server asks for them. */
  url: string;
  /** The From header: an address, or a name and an address ("Example <noreply@example.org>"). */
  from: string;
  replyTo?: string | undefined;
}

export interface SmtpMailerOptions {
  settings: MailSettings;
  branding: MailBranding;
  /** TEMPLATE_DIR: its mail/ folder replaces built-in mail templates one by one. */
  templateDir: string | undefined;
  logger: Logger;
  metrics?: MailMetrics | undefined;
  retry?: RetryPolicy | undefined;
  timers?: MailTimers | undefined;
  random?: (() => number) | undefined;
}

export interface SmtpMailer extends ServiceMailer {
  /** Mails waiting or being delivered. */
  readonly pending: number;
}

/**
 * The Mailer that sends through SMTP with nodemailer: each mail is rendered from its templates when it is
 * sent, then queued (MailQueue). Reads the templates at once: a broken one stops the start (StartupError).
 */
export function createSmtpMailer(options: SmtpMailerOptions): SmtpMailer {
  const { settings, logger, metrics } = options;
  const templates = loadMailTemplates(options.templateDir, options.branding);
  const transport = nodemailer.createTransport(smtpTransportOptions(settings.url), {
    from: settings.from,
    ...(settings.replyTo === undefined ? {} : { replyTo: settings.replyTo }),
    // RFC 3834: no out-of-office replies to a robot.
    headers: { 'Auto-Submitted': 'auto-generated' },
  });
  const queue = new MailQueue({ transport, logger, metrics, retry: options.retry, timers: options.timers, random: options.random });
  return {
    send(mail: Mail) {
      let rendered: RenderedMail;
      try {
        rendered = templates.render(mail);
      } catch (error) {
        metrics?.mailSent(mail.kind, 'failed');
        logger.error('mail not rendered', { kind: mail.kind, error: error instanceof Error ? error.message : String(error) });
        return;
      }
      // A recovery mail that arrives after its link expired is no use: it is given up then.
      const maxAgeMs = mail.kind === 'recovery' ? mail.validMinutes * 60_000 : undefined;
      queue.enqueue({ kind: mail.kind, message: { to: mail.to, ...rendered }, maxAgeMs });
    },
    get pending() {
      return queue.pending;
    },
    stop: (graceMs) => queue.stop(graceMs),
  };
}

import type { Logger } from '../log/logger.js';
import type { Mail, ServiceMailer } from './mail.js';
import { loadMailTemplates } from './templates.js';
import type { MailBranding } from './views.js';

/** The log line of every mail MAIL_LOG writes in place of sending it, and of the warning at the start. */
export const MAIL_LOG_LINE = 'mail not sent: MAIL_LOG is on (development only)';

export interface LogMailerOptions {
  branding: MailBranding;
  /** TEMPLATE_DIR: its mail/ folder replaces built-in mail templates one by one, as for SMTP. */
  templateDir: string | undefined;
  logger: Logger;
}

/**
 * MAIL_LOG's mailer, for trying the pages without a mail server: each mail is rendered as it would be sent and
 * written to the log, its text part (recovery links included) as a field, and sent to nobody. Its configuration
 * refuses it where the log may be a real deployment's (src/config/mail-settings.ts), and it warns as it is made.
 */
export function createLogMailer({ branding, templateDir, logger }: LogMailerOptions): ServiceMailer {
  const templates = loadMailTemplates(templateDir, branding);
  logger.warn(MAIL_LOG_LINE, { detail: 'every mail is written to this log, recovery links included, and none is sent; never use MAIL_LOG where members have real accounts' });
  return {
    send(mail: Mail) {
      const { subject, text } = templates.render(mail);
      logger.warn(MAIL_LOG_LINE, { kind: mail.kind, to: mail.to, subject, text });
    },
    stop: () => Promise.resolve({ dropped: 0 }),
  };
}

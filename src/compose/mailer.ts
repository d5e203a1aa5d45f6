import type { Config } from '../config/config.js';
import { lineStyle } from '../log/line-style.js';
import { createLogger, type Logger } from '../log/logger.js';
import { createLogMailer } from '../mail/log-mailer.js';
import type { ServiceMailer } from '../mail/mail.js';
import type { MailMetrics } from '../mail/queue.js';
import { createSmtpMailer } from '../mail/smtp-mailer.js';
import type { MailBranding } from '../mail/views.js';
import { brandingView } from '../web/branding.js';

/**
 * The mailer SMTP_URL asks for, or MAIL_LOG's, which writes each mail to the log (development only), branded as
 * the pages are and with their TEMPLATE_DIR; undefined without either, and then no mail is sent. Reads the mail
 * templates at once: a broken one stops the start.
 */
export function composeMailer(config: Config, logger: Logger, metrics?: MailMetrics): ServiceMailer | undefined {
  const { templateDir } = config.signin.branding;
  if (config.mailLog) return createLogMailer({ branding: mailBranding(config), templateDir, logger });
  if (config.mail === undefined) return undefined;
  return createSmtpMailer({ settings: config.mail, branding: mailBranding(config), templateDir, logger, metrics });
}

/**
 * The mailer of an admin command, which logs to stderr as the server logs to stdout: a command's output stays
 * what it prints. `stderr` is where the lines go, `terminal` whether it is one (LOG_FORMAT=auto).
 */
export function composeCommandMailer(config: Config, stderr: (text: string) => void, terminal: boolean): ServiceMailer | undefined {
  if (config.mail === undefined && !config.mailLog) return undefined;
  const logger = createLogger(config.logLevel, { write: stderr }, lineStyle(config.logFormat, { isTTY: terminal }, config.noColor));
  return composeMailer(config, logger);
}

/**
 * The pages' branding as a mail shows it: a mail is read away from the service, so LOGO_URL given as a path
 * and the sign-in page's link are made absolute with PUBLIC_URL; without PUBLIC_URL they are left out.
 */
export function mailBranding(config: Config): MailBranding {
  const { branding, loginPath } = config.signin;
  const { organizationName, accentColor, inkColor } = brandingView(branding);
  const base = config.publicUrl;
  const absolute = (url: string | undefined) => (url === undefined || base === undefined ? url : new URL(url, base).href);
  return { organizationName, logoUrl: absolute(branding.logoUrl), accentColor, inkColor, signInUrl: base === undefined ? undefined : absolute(loginPath) };
}

import { isIP } from 'node:net';
import type { Mail } from './mail.js';

/** How the mails are branded, as the pages are (ORGANIZATION_NAME, LOGO_URL, ACCENT_COLOR). */
export interface MailBranding {
  organizationName: string | undefined;
  /** LOGO_URL resolved to an absolute URL: a path means nothing in a mail, and is left out. */
  logoUrl: string | undefined;
  /** A stripe above the text; decoration only, so any colour will do. */
  accentColor: string;
  /** The links' colour: the accent where it reads on white (the pages' inkColor). */
  inkColor: string;
  /** The sign-in page, where a member who did not expect a mail can act on it; absent, the mails name it without a link. */
  signInUrl: string | undefined;
}

// Mails are read in any time zone; UTC, named, is the one that cannot be mistaken for the reader's own.
const WHEN = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

const ABSOLUTE = /^https?:\/\//i;

/** What a mail's templates read: the branding, the greeting, when and from where, and the kind's own fields. */
export function mailView(mail: Mail, branding: MailBranding): Record<string, unknown> {
  const { origin } = mail;
  const common = {
    ...branding,
    logoUrl: branding.logoUrl !== undefined && ABSOLUTE.test(branding.logoUrl) ? branding.logoUrl : undefined,
    name: mail.name,
    when: `${WHEN.format(origin.at)} UTC`,
    // Behind a trusted proxy the address is read from X-Forwarded-For, whose entries a client can write
    // too: the mail shows an IP address only, never other text.
    client: origin.client !== undefined && isIP(origin.client) !== 0 ? origin.client : undefined,
    device: origin.device,
  };
  switch (mail.kind) {
    case 'recovery':
      return { ...common, link: mail.link, validFor: duration(mail.validMinutes) };
    case 'password_changed':
    case 'two_step_enabled':
    case 'two_step_disabled':
      return { ...common, byAccount: mail.by === 'account', byRecovery: mail.by === 'recovery', byAdmin: mail.by === 'admin' };
    case 'recovery_code_used':
      return { ...common, remaining: mail.remaining, oneLeft: mail.remaining === 1, noneLeft: mail.remaining === 0 };
    case 'passkey_added':
      return { ...common, passkeyName: mail.passkeyName };
  }
}

/** 30 → "30 minutes", 60 → "1 hour", 90 → "90 minutes". */
function duration(minutes: number): string {
  if (minutes >= 60 && minutes % 60 === 0) return plural(minutes / 60, 'hour');
  return plural(minutes, 'minute');
}

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

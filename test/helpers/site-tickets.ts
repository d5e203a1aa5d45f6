/**
 * The membership site of the tests that run beside one: a <machineKey> with a Forms cookie real .NET Framework
 * wrote under it (test/service/forms-ticket/dotnet-vectors.ts), and tickets of other names and times made with
 * the same key, as the site would issue them.
 */
import { machineKey, type MachineKeySettings } from '../../src/service/forms-ticket/machine-key.js';
import type { FormsTicket } from '../../src/service/forms-ticket/serializer.js';
import { issueFormsTicket, readFormsTicket } from '../../src/service/forms-ticket/ticket.js';
import { dateFromTicks, ticksFromDate } from '../../src/service/forms-ticket/ticks.js';
import type { FormsCookieSettings } from '../../src/service/forms-tickets.js';
import { DOTNET_VECTORS, type DotNetVector } from '../service/forms-ticket/dotnet-vectors.js';

function vectorOf(mode: MachineKeySettings['compatibilityMode'], validation: MachineKeySettings['validation']): DotNetVector {
  const vector = DOTNET_VECTORS.find(({ settings }) => settings.compatibilityMode === mode && settings.validation === validation);
  if (!vector) throw new Error(`no .NET vector for ${mode} ${validation}`);
  return vector;
}

/** The site: .NET 4.5 protection, HMACSHA512 and AES, and the cookie .NET wrote for test@example.com. */
const SITE_VECTOR = vectorOf('Framework45', 'HMACSHA512');
/** Another site, with keys of its own (legacy protection, HMACSHA384): its cookie is not the site's. */
const OTHER_VECTOR = vectorOf('Framework20SP2', 'HMACSHA384');

export const SITE_KEY: MachineKeySettings = SITE_VECTOR.settings;

/** The ticket inside a cookie, read with the site's key whatever its age (the Unix epoch is before any ticket's expiry). */
export function ticketIn(cookie: string, settings: MachineKeySettings = SITE_KEY): FormsTicket {
  const read = readFormsTicket(machineKey(settings), cookie, new Date(0));
  if (!read.ok) throw new Error(`not a ticket of this key: ${read.reason}`);
  return read.ticket;
}

const dotnetTicket = ticketIn(SITE_VECTOR.cookie);

/** The cookie .NET Framework's FormsAuthentication wrote, and what it holds. */
export const DOTNET_COOKIE = {
  value: SITE_VECTOR.cookie,
  name: dotnetTicket.name,
  issuedAt: dateFromTicks(dotnetTicket.issueTicks).getTime(),
  expiresAt: dateFromTicks(dotnetTicket.expirationTicks).getTime(),
};

/** A cookie .NET wrote under another site's keys. */
export const OTHER_SITE_COOKIE = OTHER_VECTOR.cookie;

/** A cookie of the site for this name, issued at this time for `minutes`, as FormsAuthentication.SetAuthCookie makes it. */
export function siteCookie(name: string, issuedAt: number, minutes = 30): string {
  const issued = issueFormsTicket(machineKey(SITE_KEY), {
    version: 2,
    name,
    issueTicks: ticksFromDate(new Date(issuedAt)),
    expirationTicks: ticksFromDate(new Date(issuedAt + minutes * 60_000)),
    isPersistent: false,
    userData: '',
    cookiePath: '/',
  });
  if (!issued.ok) throw new Error('ticket too long');
  return issued.cookie;
}

/** The service's Forms cookie beside the site: its key, 30-minute sliding tickets, names no member has refused, tickets a week old at most. */
export const SITE_FORMS: FormsCookieSettings = { machineKey: SITE_KEY, timeoutMinutes: 30, sliding: true, unknownMember: 'refuse', maxTicketAgeSeconds: 7 * 86400 };

/** Sessions that outlive the site's tickets (and are not idle within them), so that a ticket's own life is what shows. */
export const SESSIONS_OUTLIVING_TICKETS = { absoluteTimeoutSeconds: 12 * 3600, idleTimeoutSeconds: 4 * 3600, slidingIdle: true };

/** The settings that give the service the site's key. */
export const SITE_ENV = {
  MACHINE_KEY_VALIDATION_KEY: SITE_KEY.validationKey,
  MACHINE_KEY_DECRYPTION_KEY: SITE_KEY.decryptionKey,
  MACHINE_KEY_VALIDATION: SITE_KEY.validation,
  MACHINE_KEY_DECRYPTION: SITE_KEY.decryption,
  MACHINE_KEY_COMPATIBILITY: SITE_KEY.compatibilityMode,
} as const;

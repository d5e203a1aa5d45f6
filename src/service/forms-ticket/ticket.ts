/**
 * Reading and issuing the membership site's Forms authentication cookie (.ASPXAUTH or <forms name>): the
 * ticket (serializer.ts) protected with the site's <machineKey> (machine-key.ts) as .NET 4.5 does it
 * (framework45.ts) or as earlier versions do (legacy.ts), written as upper-case hex as
 * FormsAuthentication.Encrypt writes it.
 *
 * Reading never throws: whatever the cookie, the answer is a ticket or the reason there is none, and its
 * cost is bounded before any work, by FormsAuthentication's own limit on the cookie's length.
 */
import { randomBytes } from 'node:crypto';
import { protectFramework45, unprotectFramework45 } from './framework45.js';
import { legacyPrefixLength, protectLegacy, unprotectLegacy } from './legacy.js';
import type { MachineKey } from './machine-key.js';
import type { Refusal } from './primitives.js';
import { deserializeTicket, serializeTicket, type FormsTicket } from './serializer.js';
import { ticksFromDate } from './ticks.js';

/** FormsAuthentication.Decrypt refuses a cookie longer than this (MAX_TICKET_LENGTH), and so does this service. */
export const MAX_COOKIE_LENGTH = 4096;
const HEX = /^[0-9A-Fa-f]+$/;

export type TicketRead = { readonly ok: true; readonly ticket: FormsTicket } | { readonly ok: false; readonly reason: Refusal };

export type TicketIssued = { readonly ok: true; readonly cookie: string } | { readonly ok: false; readonly reason: 'too-long' };

/**
 * The ticket a cookie value holds, if this site's key signed it and it has not expired at `now`
 * (FormsAuthenticationTicket.Expired: the expiration is before now).
 */
export function readFormsTicket(key: MachineKey, cookie: string, now: Date): TicketRead {
  if (typeof cookie !== 'string' || cookie.length > MAX_COOKIE_LENGTH || cookie.length % 2 !== 0 || !HEX.test(cookie)) {
    return { ok: false, reason: 'malformed' };
  }
  const blob = Buffer.from(cookie, 'hex');
  const unprotected = key.protection === 'Framework45' ? unprotectFramework45(key, blob) : unprotectLegacy(key, blob);
  if (!unprotected.ok) return unprotected;
  const ticket = deserializeTicket(unprotected.plaintext);
  if (ticket === undefined) return { ok: false, reason: 'bad-ticket' };
  if (ticket.expirationTicks < ticksFromDate(now)) return { ok: false, reason: 'expired' };
  return { ok: true, ticket };
}

/**
 * The cookie value the site reads as this ticket, with a fresh random IV (or legacy prefix); refused when it
 * would be longer than the site reads. A version or date out of .NET's range is a RangeError.
 */
export function issueFormsTicket(key: MachineKey, ticket: FormsTicket): TicketIssued {
  const plaintext = serializeTicket(ticket);
  const blob =
    key.protection === 'Framework45'
      ? protectFramework45(key, plaintext, randomBytes(key.cipher.blockSize))
      : protectLegacy(key, plaintext, randomBytes(legacyPrefixLength(key)));
  const cookie = blob.toString('hex').toUpperCase();
  return cookie.length > MAX_COOKIE_LENGTH ? { ok: false, reason: 'too-long' } : { ok: true, cookie };
}

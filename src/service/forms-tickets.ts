/**
 * The membership site's own login cookie: an ASP.NET Forms Authentication ticket under the site's <machineKey>
 * (src/service/forms-ticket/). With the site's keys configured, this service issues such a ticket as the login
 * cookie of every session it opens (so that the member is signed in to the site too), and answers for tickets
 * the site issued, or renewed, itself (docs/imis.md).
 *
 * A ticket the site made is not a session here: it is checked as the site checks it (its signature and its
 * expiry), its name is a member's username, and on top of what the site knows, a sign-out here counts: a ticket
 * issued at or before the last time one of its member's sessions here was ended (a sign-out, DeleteUserSession,
 * an administrator) does not answer. The ended sessions are that record, kept SESSION_RETENTION, so a ticket
 * issued longer ago than that does not answer either.
 */
import type { MemberRow, SessionRow, Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { machineKey, type MachineKey, type MachineKeySettings } from './forms-ticket/machine-key.js';
import type { FormsTicket } from './forms-ticket/serializer.js';
import { issueFormsTicket, MAX_COOKIE_LENGTH, readFormsTicket, type TicketRead } from './forms-ticket/ticket.js';
import { dateFromTicks, ticksFromDate } from './forms-ticket/ticks.js';
import { MAX_FIELD_LENGTH } from './members.js';
import type { NotSignedInReason } from './sessions.js';
import type { ShortLivedCache } from './short-lived-cache.js';

/** What a ticket whose name no member has answers: not signed in, or a member made of the name alone. */
export type UnknownTicketMember = 'refuse' | 'minimal';

/** The site's Forms cookie as the service is told it (MACHINE_KEY_*, FORMS_*). */
export interface FormsCookieSettings {
  /** The site's <machineKey>: its keys (secrets) and algorithms. */
  readonly machineKey: MachineKeySettings;
  /** FORMS_TIMEOUT: how long a ticket this service issues lives, in minutes. */
  readonly timeoutMinutes: number;
  /** FORMS_SLIDING: whether a ticket this service issued is renewed (renew) once half its life has passed. */
  readonly sliding: boolean;
  /** FORMS_UNKNOWN_MEMBER. */
  readonly unknownMember: UnknownTicketMember;
  /** SESSION_RETENTION: how long ended sessions, the record of sign-outs, are kept; older tickets never answer. */
  readonly maxTicketAgeSeconds: number;
}

/** How a login cookie that is a ticket of the site stands: valid until its expiry, or refused. */
export type CookieTicket = { readonly ok: true; readonly expiresAt: number } | { readonly ok: false; readonly reason: 'expired' | 'ticket-invalid' };

/** A ticket issued again by renew: the login cookie that holds it, and whether it is persistent ("keep me signed in"). */
export interface RenewedTicket {
  readonly cookie: string;
  readonly persistent: boolean;
}

/** Whom a ticket signs in: a member (one of the service's, or a minimal one of its name), or why nobody. */
export type TicketCheck = { readonly ok: true; readonly member: MemberRow } | { readonly ok: false; readonly reason: NotSignedInReason };

/** What the store says of a ticket's name: the member who has it as username, and that member's last sign-out here. */
export interface TicketHolder {
  readonly member: MemberRow | null;
  readonly signedOutAt: number | null;
}

/** A ticket read: its member, or why none; a name no member has comes with the ticket, for a minimal member. */
type TicketReading =
  | { readonly ok: true; readonly member: MemberRow }
  | { readonly ok: false; readonly reason: Exclude<NotSignedInReason, 'unknown-member'> }
  | { readonly ok: false; readonly reason: 'unknown-member'; readonly ticket: FormsTicket; readonly issuedAt: number };

const NOBODY: TicketHolder = { member: null, signedOutAt: null };

/** The version FormsAuthentication.SetAuthCookie writes. */
const TICKET_VERSION = 2;
/** No ticket the site can write is shorter (an empty name, AES and SHA1 under .NET 4.5: 68 bytes). */
const MIN_TICKET_HEX = 128;
/** FormsAuthentication.Encrypt writes upper-case hex. */
const TICKET_SHAPE = /^(?:[0-9A-F]{2})+$/;

/**
 * Whether a cookie value could be one of the site's tickets: long upper-case hex, as FormsAuthentication writes
 * it. The service's own login cookies (base64url) never are, so they never cost a ticket's decryption.
 */
function looksLikeFormsTicket(value: string): boolean {
  return value.length >= MIN_TICKET_HEX && value.length <= MAX_COOKIE_LENGTH && TICKET_SHAPE.test(value);
}

function refusal(read: Extract<TicketRead, { ok: false }>): { ok: false; reason: 'expired' | 'ticket-invalid' } {
  return { ok: false, reason: read.reason === 'expired' ? 'expired' : 'ticket-invalid' };
}

/** When the member's sessions here were last ended, of those still kept; null when none was. */
function lastSignOut(sessions: readonly SessionRow[]): number | null {
  return sessions.reduce<number | null>((latest, { revokedAt }) => (revokedAt !== null && (latest === null || revokedAt > latest) ? revokedAt : latest), null);
}

/** FORMS_UNKNOWN_MEMBER=minimal: the ticket's name is all there is to answer, as id and username. */
function minimalMember(ticket: FormsTicket, issuedAt: number): MemberRow {
  return { id: ticket.name, username: ticket.name, email: '', firstName: '', lastName: '', enabled: true, createdAt: issuedAt, attributes: {}, version: 0, updatedAt: issuedAt, externalId: null, displayName: null, formattedName: null };
}

/**
 * The site's tickets, issued and read with its key. What the store says of a ticket's name is cached for
 * CACHE_TTL_MS (`cache`) and forgotten whenever sessions end or members change (SessionService tells).
 * The derived keys never leave this object.
 */
export class FormsTickets {
  readonly #key: MachineKey;

  constructor(
    private readonly store: Store,
    private readonly settings: FormsCookieSettings,
    private readonly clock: Clock,
    private readonly cache: ShortLivedCache<TicketHolder>,
  ) {
    this.#key = machineKey(settings.machineKey);
  }

  /**
   * A new login cookie for this member: a ticket the site reads as the member's, issued `now`, persistent when
   * the member asked to stay signed in (as FormsAuthentication.SetAuthCookie(name, persistent) makes it).
   */
  issue(username: string, now: number, persistent: boolean): string {
    return this.#issue({ version: TICKET_VERSION, name: username, isPersistent: persistent, userData: '', cookiePath: '/' }, now);
  }

  /**
   * FORMS_SLIDING, as FormsAuthentication.RenewTicketIfOld does it: a valid ticket of which at least as much
   * time has passed since it was issued as is left until it expires, issued again `now` for FORMS_TIMEOUT, with
   * its name, persistence, user data, version and path. Null when sliding is off, or the cookie is not such a
   * ticket (younger, expired, not the site's). Whose ticket it is, is the caller's to know: the pages renew
   * only the login cookie of a live session here.
   */
  renew(cookie: string, now: number): RenewedTicket | null {
    if (!this.settings.sliding || !looksLikeFormsTicket(cookie)) return null;
    const read = readFormsTicket(this.#key, cookie, new Date(now));
    if (!read.ok) return null;
    const { ticket } = read;
    const left = dateFromTicks(ticket.expirationTicks).getTime() - now;
    if (left > now - dateFromTicks(ticket.issueTicks).getTime()) return null;
    return { cookie: this.#issue(ticket, now), persistent: ticket.isPersistent };
  }

  /** The ticket, issued `now` and expiring FORMS_TIMEOUT later, as the login cookie that holds it. */
  #issue(ticket: Omit<FormsTicket, 'issueTicks' | 'expirationTicks'>, now: number): string {
    const issued = issueFormsTicket(this.#key, {
      ...ticket,
      issueTicks: ticksFromDate(new Date(now)),
      expirationTicks: ticksFromDate(new Date(now + this.settings.timeoutMinutes * 60_000)),
    });
    // Usernames are at most MAX_FIELD_LENGTH characters, whose tickets are well within the site's limit, and a
    // renewed ticket is as long as the one read.
    if (!issued.ok) throw new RangeError(`A Forms ticket for a username of ${ticket.name.length} characters is longer than the site reads.`);
    return issued.cookie;
  }

  /**
   * How a session's login cookie stands as a ticket of the site, at `now`; undefined for a cookie that is not
   * one (the service's own), which answers as its session does.
   */
  cookieTicket(cookie: string, now: number): CookieTicket | undefined {
    if (!looksLikeFormsTicket(cookie)) return undefined;
    const read = readFormsTicket(this.#key, cookie, new Date(now));
    return read.ok ? { ok: true, expiresAt: dateFromTicks(read.ticket.expirationTicks).getTime() } : refusal(read);
  }

  /**
   * Whom a cookie that is no session's signs in as a ticket of the site; null when it is not shaped like one,
   * so that the session lookup's answer stands.
   */
  async check(cookie: string): Promise<TicketCheck | null> {
    const found = await this.#read(cookie);
    if (found === null || found.ok || found.reason !== 'unknown-member') return found;
    return this.settings.unknownMember === 'minimal' ? { ok: true, member: minimalMember(found.ticket, found.issuedAt) } : { ok: false, reason: 'unknown-member' };
  }

  /** The member, one of the service's, that a cookie signs in as a ticket of the site; null for none. */
  async memberOf(cookie: string): Promise<MemberRow | null> {
    const found = await this.#read(cookie);
    return found?.ok ? found.member : null;
  }

  /** Forgets what the store said of tickets' names: sessions ended, or members changed. */
  forgetCached(): void {
    this.cache.clear();
  }

  /** The ticket's member, or why none; null for a cookie not shaped like a ticket. */
  async #read(cookie: string): Promise<TicketReading | null> {
    if (!looksLikeFormsTicket(cookie)) return null;
    const now = this.clock();
    const read = readFormsTicket(this.#key, cookie, new Date(now));
    if (!read.ok) return refusal(read);
    const { ticket } = read;
    const issuedAt = dateFromTicks(ticket.issueTicks).getTime();
    if (issuedAt < now - this.settings.maxTicketAgeSeconds * 1000) return { ok: false, reason: 'expired' };
    const { member, signedOutAt } = await this.#holder(ticket.name, now);
    if (member === null) return { ok: false, reason: 'unknown-member', ticket, issuedAt };
    if (!member.enabled) return { ok: false, reason: 'member-disabled' };
    if (signedOutAt !== null && signedOutAt >= issuedAt) return { ok: false, reason: 'revoked' };
    return { ok: true, member };
  }

  /**
   * The member whose username is the ticket's name, ignoring case as sign-in does (no two members' usernames
   * differ in case alone), with the member's last sign-out here. Only names from tickets the site signed get
   * here, so even a name no member has may be kept.
   */
  async #holder(name: string, now: number): Promise<TicketHolder> {
    const holder = await this.cache.fetch(`name:${name.toLowerCase()}`, now, async () => {
      if (name.length === 0 || name.length > MAX_FIELD_LENGTH) return NOBODY;
      const matches = await this.store.findMembersByLogin(name);
      const member = matches.find((match) => match.member.username.toLowerCase() === name.toLowerCase())?.member ?? null;
      return { member, signedOutAt: member && lastSignOut(await this.store.listSessions({ memberId: member.id })) };
    });
    return holder ?? NOBODY;
  }
}
